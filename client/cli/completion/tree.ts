// The command tree as shell completion needs it, read from commander (the same visible commands
// and options `--help` shows), so completion never drifts from the commands.
import type { Command } from 'commander';

export interface CompletionOption {
  long?: string;
  short?: string;
  description: string;
  /** The option is followed by a value (--top-k 5). */
  takesValue: boolean;
  /** A root option, accepted after every command too. */
  global?: boolean;
  choices?: string[];
}

export interface CompletionNode {
  /** Words from the root: [] for `engram`, ['checkpoint', 'save'] for `engram checkpoint save`. */
  path: string[];
  name: string;
  description: string;
  commands: CompletionNode[];
  /** Its own options and the root's (global) ones, --help included. */
  options: CompletionOption[];
  /** The choices of its positional arguments (`completion bash|zsh|fish`). */
  argumentChoices: string[];
}

export function completionTree(program: Command): CompletionNode {
  const help = program.createHelp();
  const toOption = (o: ReturnType<typeof help.visibleOptions>[number]): CompletionOption => ({
    ...(o.long ? { long: o.long } : {}),
    ...(o.short ? { short: o.short } : {}),
    description: o.description,
    takesValue: o.required || o.optional,
    ...(o.argChoices ? { choices: [...o.argChoices] } : {}),
  });
  const globals = help
    .visibleOptions(program)
    .filter((o) => o.long !== '--help' && o.long !== '--version')
    .map((o) => ({ ...toOption(o), global: true }));

  const walk = (cmd: Command, path: string[]): CompletionNode => {
    const own = path.length === 0 ? [...help.visibleOptions(cmd).filter((o) => !o.long || !globals.some((g) => g.long === o.long)).map(toOption), ...globals] : help.visibleOptions(cmd).map(toOption);
    const seen = new Set(own.map((o) => o.long));
    return {
      path,
      name: path.at(-1) ?? cmd.name(),
      description: cmd.description(),
      commands: help.visibleCommands(cmd).map((sub) => walk(sub, [...path, sub.name()])),
      options: path.length === 0 ? own : [...own, ...globals.filter((g) => !seen.has(g.long))],
      argumentChoices: cmd.registeredArguments.flatMap((a) => a.argChoices ?? []),
    };
  };
  return walk(program, []);
}

/** Every node, root first, depth first. */
export function allNodes(root: CompletionNode): CompletionNode[] {
  return [root, ...root.commands.flatMap(allNodes)];
}
