// Memory slots: the list (by project, words, archived or not), and one slot to view and edit —
// its value, review status, confidence and evidence — lock or unlock, archive, and every change
// it went through.
import { useRef, useState } from 'preact/hooks';
import { describeSlotChange } from '../../../shared/json/slot-change.ts';
import { del, get, post, type ResponseOf } from '../api.ts';
import { when } from '../format.ts';
import { Confirm } from '../parts/confirm.tsx';
import { Choice } from '../parts/choice.tsx';
import { Problem, Show, useLoad } from '../parts/load.tsx';
import { href } from '../router.ts';

type Slot = ResponseOf<'SlotEnvelope'>['slot'];
const STATUSES = ['needs_review', 'approved', 'promoted', 'rejected'];
const slotPath = (id: string) => `/v1/memory-controls/slots/${encodeURIComponent(id)}`;

export function SlotsView({ slotId }: { slotId?: string }) {
  return slotId ? <SlotDetail id={slotId} /> : <SlotList />;
}

function SlotList() {
  const [archived, setArchived] = useState(false);
  const [words, setWords] = useState('');
  const list = useLoad(() => get('SlotList', '/v1/memory-controls/slots', { archived, query: words || undefined }), [archived, words]);
  return (
    <section aria-labelledby="slots-title">
      <h2 id="slots-title">Memory slots</h2>
      <form class="filters" onSubmit={(e) => (e.preventDefault(), setWords(String(new FormData(e.target as HTMLFormElement).get('words') ?? '')))}>
        <label>
          Name or value <input name="words" type="search" defaultValue={words} />
        </label>
        <label>
          <input type="checkbox" checked={archived} onChange={(e) => setArchived((e.target as HTMLInputElement).checked)} /> archived ones
        </label>
        <button type="submit">Find</button>
      </form>
      <Show loaded={list}>
        {(l) =>
          l.slots.length ? (
            <table class="slots">
              <thead>
                <tr>
                  <th scope="col">Slot</th>
                  <th scope="col">Value</th>
                  <th scope="col">Project</th>
                  <th scope="col">Review</th>
                  <th scope="col">Locked</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {l.slots.map((s) => (
                  <tr key={s.record_id}>
                    <td>
                      <a href={href(['slots', s.record_id])}>{s.slot_name}</a>
                    </td>
                    <td>
                      <code>{JSON.stringify(s.slot_value).slice(0, 80)}</code>
                    </td>
                    <td>{s.project_id ?? 'global'}</td>
                    <td>{s.status}</td>
                    <td>{s.locked ? 'locked' : ''}</td>
                    <td>{when(s.updated_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p class="hint">No slots{archived ? ' archived' : ''}.</p>
          )
        }
      </Show>
    </section>
  );
}

function SlotDetail({ id }: { id: string }) {
  const slot = useLoad(() => get('SlotEnvelope', slotPath(id)), [id]);
  const history = useLoad(() => get('SlotHistory', `${slotPath(id)}/history`), [id, slot.value?.slot.version]);
  return (
    <section aria-labelledby="slot-title">
      <p>
        <a href={href(['slots'])}>← Slots</a>
      </p>
      <Show loaded={slot}>
        {({ slot: s }) => (
          <>
            <h2 id="slot-title">
              {s.slot_name} <span class="hint">({s.scope}, {s.project_id ?? 'global'}, version {s.version})</span>
            </h2>
            <SlotEditor slot={s} onSaved={slot.reload} />
          </>
        )}
      </Show>
      <h3>Change history</h3>
      <Show loaded={history}>
        {(h) => (
          <ol class="history" aria-label="Change history">
            {h.changes.map((c) => (
              <li key={c.version}>
                <strong>
                  v{c.version} {c.op}
                </strong>{' '}
                by {c.by} on {when(c.at)}: {describeSlotChange(c.before, c.after)}
              </li>
            ))}
          </ol>
        )}
      </Show>
    </section>
  );
}

function SlotEditor({ slot: s, onSaved }: { slot: Slot; onSaved: () => void }) {
  const [problem, setProblem] = useState<string>();
  const [done, setDone] = useState<string>();
  const [archiving, setArchiving] = useState(false);
  const archived = s.status === 'archived';
  const identity = { slot_name: s.slot_name, scope: s.scope, ...(s.project_id !== null ? { project_id: s.project_id } : {}) };
  // The form shows the stored slot again once a change to it is read back, unless something was
  // typed since the last save: a value typed while a save (or a lock) is on its way stays.
  const edited = useRef(false);
  const shown = useRef({ version: s.version, key: 0 });
  if (shown.current.version !== s.version) shown.current = { version: s.version, key: edited.current ? shown.current.key : shown.current.key + 1 };
  // One outcome shows at a time: a refusal clears the last "Saved." and a success the last refusal.
  const fail = (message: string) => (setDone(undefined), setProblem(message));
  const write = (what: string, body: Record<string, unknown>) => {
    setProblem(undefined);
    setDone(undefined);
    post('SlotEnvelope', '/v1/memory-controls/slots', { ...identity, ...body }).then(
      () => (setDone(what), onSaved()),
      (e: Error) => fail(e.message),
    );
  };
  const save = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.target as HTMLFormElement);
    edited.current = false;
    let value: unknown;
    try {
      value = JSON.parse(String(form.get('value')));
    } catch {
      return fail('Value: must be JSON (a quoted string, a number, an object…)');
    }
    const evidence = String(form.get('evidence') ?? '').split('\n').map((l) => l.trim()).filter(Boolean);
    const confidence = String(form.get('confidence') ?? '').trim();
    write('Saved.', { slot_value: value, status: form.get('status'), ...(confidence !== '' ? { confidence: Number(confidence) } : {}), evidence_refs: evidence });
  };
  return (
    <>
      <dl class="fields" aria-label="Slot">
        <div>
          <dt>Authority</dt>
          <dd>{s.authority}</dd>
        </div>
        <div>
          <dt>Verification</dt>
          <dd>{s.verification_state}</dd>
        </div>
        <div>
          <dt>Locked</dt>
          <dd data-field="locked">{s.locked ? 'yes' : 'no'}</dd>
        </div>
        <div>
          <dt>Visibility</dt>
          <dd>{s.visibility}</dd>
        </div>
      </dl>
      <form class="slot-form" onSubmit={save} onInput={() => (edited.current = true)} onChange={() => (edited.current = true)} key={shown.current.key}>
        <label>
          Value (JSON)
          <textarea name="value" rows={4} defaultValue={JSON.stringify(s.slot_value, null, 2)} disabled={archived} />
        </label>
        <label>
          Review status
          <Choice name="status" initial={STATUSES.includes(s.status) ? s.status : 'needs_review'} options={STATUSES.map((st) => [st, st] as const)} disabled={archived} />
        </label>
        <label>
          Confidence <input name="confidence" type="number" min={0} max={1} step="any" defaultValue={String(s.confidence)} disabled={archived} />
        </label>
        <label>
          Evidence (one reference a line)
          <textarea name="evidence" rows={3} defaultValue={s.evidence_refs.join('\n')} disabled={archived} />
        </label>
        <div class="actions">
          <button type="submit" disabled={archived}>
            Save
          </button>
          <button type="button" disabled={archived} onClick={() => write(s.locked ? 'Unlocked.' : 'Locked.', { locked: !s.locked })}>
            {s.locked ? 'Unlock' : 'Lock'}
          </button>
          <button type="button" class="danger" disabled={archived || s.locked} title={s.locked ? 'unlock it first' : undefined} onClick={() => setArchiving(true)}>
            Archive
          </button>
          <span aria-live="polite" class="done">
            {done}
          </span>
        </div>
        <Problem message={problem} />
      </form>
      {archiving && (
        <Confirm
          title="Archive this slot?"
          action="Archive"
          onCancel={() => setArchiving(false)}
          onConfirm={() => {
            setArchiving(false);
            setProblem(undefined);
            del('SlotEnvelope', slotPath(s.record_id)).then(
              () => (setDone('Archived.'), onSaved()),
              (e: Error) => fail(e.message),
            );
          }}
        >
          It leaves the slots that apply; its history stays.
        </Confirm>
      )}
    </>
  );
}
