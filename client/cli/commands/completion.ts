// `engram completion bash|zsh|fish`: a completion script generated from the command tree.
import { Argument, type Command } from 'commander';
import { completionScript, SHELLS, type Shell } from '../completion/scripts.ts';
import { completionTree } from '../completion/tree.ts';
import type { Cli } from '../context.ts';

export function registerCompletionCommand({ program }: Cli): void {
  program
    .command('completion')
    .description('print a shell completion script (bash: source <(engram completion bash); fish: engram completion fish | source)')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .action((shell: Shell, _o, _cmd: Command) => {
      process.stdout.write(completionScript(shell, completionTree(program)));
    });
}
