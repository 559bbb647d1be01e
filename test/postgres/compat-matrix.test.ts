// The compat-matrix suite (test/compat-matrix.test.ts) again, every daemon it starts serving a database of the
// test PostgreSQL server instead of its embedded store: the same contract on both stores.
import { postgresLeg } from './leg.ts';

postgresLeg();
await import('../compat-matrix.test.ts');
