// Shell completion scripts generated from the command tree (tree.ts). Each script first walks the
// words typed so far to find the command path ("" for engram, "checkpoint save"…), skipping the
// values of options that take one, then offers that command's subcommands, argument choices and
// long options; an option's value completes from its choices, else from file names.
import { allNodes, type CompletionNode, type CompletionOption } from './tree.ts';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

const key = (node: CompletionNode) => node.path.join(' ');
const flags = (o: CompletionOption) => [o.long, o.short].filter((f): f is string => Boolean(f));
const longs = (node: CompletionNode) => node.options.flatMap((o) => (o.long ? [o.long] : []));
/** A single-quoted word for bash and zsh. */
const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** `case` arms shared by bash and zsh: how each word moves along the path or skips a value. */
function walkArms(nodes: CompletionNode[], indent: string): string[] {
  const arms: string[] = [];
  for (const node of nodes) {
    for (const sub of node.commands) arms.push(`${indent}${JSON.stringify(`${key(node)}|${sub.name}`)}) cmd=${JSON.stringify(key(sub))} ;;`);
  }
  for (const node of nodes) {
    const valued = node.options.filter((o) => o.takesValue && !o.global).flatMap(flags);
    if (valued.length) arms.push(`${indent}${valued.map((f) => JSON.stringify(`${key(node)}|${f}`)).join('|')}) skip=1 ;;`);
  }
  const globals = nodes[0]!.options.filter((o) => o.takesValue && o.global).flatMap(flags);
  if (globals.length) arms.push(`${indent}${globals.map((f) => `*${JSON.stringify(`|${f}`)}`).join('|')}) skip=1 ;;`);
  return arms;
}

/** `case` arms on "path|previous word" for option values: an arm per option with choices, then
 *  one arm for every other valued option (file names). */
function valueArms(nodes: CompletionNode[], indent: string, choices: (c: string[]) => string, files: string): string[] {
  const arms: string[] = [];
  const free: string[] = [];
  const patterns = (node: CompletionNode, o: CompletionOption) =>
    flags(o).map((f) => (o.global ? `*${JSON.stringify(`|${f}`)}` : JSON.stringify(`${key(node)}|${f}`)));
  for (const node of nodes) {
    for (const o of node.options.filter((opt) => opt.takesValue && (!opt.global || node === nodes[0]))) {
      if (o.choices) arms.push(`${indent}${patterns(node, o).join('|')}) ${choices(o.choices)}; return ;;`);
      else free.push(...patterns(node, o));
    }
  }
  if (free.length) arms.push(`${indent}${free.join('|')}) ${files}; return ;;`);
  return arms;
}

export function bashScript(root: CompletionNode): string {
  const nodes = allNodes(root);
  const lists = nodes.map((n) => {
    const words = [...n.commands.map((c) => c.name), ...n.argumentChoices];
    return `    ${JSON.stringify(key(n))}) cmds=${sq(words.join(' '))}; opts=${sq(longs(n).join(' '))} ;;`;
  });
  return [
    '# bash completion for engram, generated from its command tree by `engram completion bash`.',
    '# Load it with: source <(engram completion bash)',
    '_engram() {',
    '  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}',
    '  local cmd="" word i skip=0 cmds="" opts=""',
    '  for ((i = 1; i < COMP_CWORD; i++)); do',
    '    word=${COMP_WORDS[i]}',
    '    if ((skip)); then skip=0; continue; fi',
    '    case "$cmd|$word" in',
    ...walkArms(nodes, '      '),
    '    esac',
    '  done',
    '  case "$cmd|$prev" in',
    ...valueArms(nodes, '    ', (c) => `COMPREPLY=($(compgen -W ${sq(c.join(' '))} -- "$cur"))`, 'COMPREPLY=()'),
    '  esac',
    '  case "$cmd" in',
    ...lists,
    '  esac',
    '  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); else COMPREPLY=($(compgen -W "$cmds" -- "$cur")); fi',
    '}',
    'complete -o default -F _engram engram',
    '',
  ].join('\n');
}

export function zshScript(root: CompletionNode): string {
  const nodes = allNodes(root);
  const described = (name: string, description: string) => sq(`${name.replace(/:/g, '\\:')}:${oneLine(description)}`);
  const lists = nodes.map((n) => {
    const cmds = [...n.commands.map((c) => described(c.name, c.description)), ...n.argumentChoices.map((c) => sq(c))];
    const opts = n.options.filter((o) => o.long).map((o) => described(o.long!, o.description));
    return `    ${JSON.stringify(key(n))}) cmds=(${cmds.join(' ')}); opts=(${opts.join(' ')}) ;;`;
  });
  return [
    '#compdef engram',
    '# zsh completion for engram, generated from its command tree by `engram completion zsh`.',
    '# Load it with: source <(engram completion zsh), or save it as _engram in your $fpath.',
    '_engram() {',
    '  local cmd="" word i skip=0',
    '  local -a cmds opts',
    '  for ((i = 2; i < CURRENT; i++)); do',
    '    word=${words[i]}',
    '    if ((skip)); then skip=0; continue; fi',
    '    case "$cmd|$word" in',
    ...walkArms(nodes, '      '),
    '    esac',
    '  done',
    '  case "$cmd|${words[CURRENT-1]}" in',
    ...valueArms(nodes, '    ', (c) => `compadd -- ${c.map(sq).join(' ')}`, '_files'),
    '  esac',
    '  case "$cmd" in',
    ...lists,
    '  esac',
    '  if [[ ${words[CURRENT]} == -* ]]; then _describe -t options option opts',
    '  elif (( ${#cmds} )); then _describe -t commands command cmds',
    '  else _files; fi',
    '}',
    'if [[ "$funcstack[1]" == "_engram" ]]; then _engram "$@"; else compdef _engram engram; fi',
    '',
  ].join('\n');
}

export function fishScript(root: CompletionNode): string {
  const nodes = allNodes(root);
  const fq = (s: string) => `'${s.replace(/[\\']/g, (c) => `\\${c}`)}'`;
  const arms: string[] = [];
  for (const node of nodes) {
    for (const sub of node.commands) arms.push(`            case ${fq(`${key(node)}|${sub.name}`)}`, `                set cmd ${fq(key(sub))}`);
  }
  for (const node of nodes) {
    const valued = node.options.filter((o) => o.takesValue && !o.global).flatMap(flags);
    if (valued.length) arms.push(`            case ${valued.map((f) => fq(`${key(node)}|${f}`)).join(' ')}`, '                set skip 1');
  }
  const globals = root.options.filter((o) => o.takesValue && o.global).flatMap(flags);
  if (globals.length) arms.push(`            case ${globals.map((f) => `'*|${f}'`).join(' ')}`, '                set skip 1');
  const lines: string[] = [];
  for (const node of nodes) {
    const at = `-n ${fq(`__engram_at ${fq(key(node))}`)}`;
    for (const sub of node.commands) lines.push(`complete -c engram ${at} -f -a ${fq(sub.name)} -d ${fq(oneLine(sub.description))}`);
    if (node.argumentChoices.length) lines.push(`complete -c engram ${at} -f -a ${fq(node.argumentChoices.join(' '))}`);
    for (const o of node.options) {
      const names = [o.long ? `-l ${o.long.slice(2)}` : '', o.short ? `-s ${o.short.slice(1)}` : ''].filter(Boolean).join(' ');
      const value = o.choices ? ` -x -a ${fq(o.choices.join(' '))}` : o.takesValue ? ' -r' : '';
      lines.push(`complete -c engram ${at} ${names}${value} -d ${fq(oneLine(o.description))}`);
    }
  }
  return [
    '# fish completion for engram, generated from its command tree by `engram completion fish`.',
    '# Load it with: engram completion fish | source',
    'function __engram_cmd',
    '    set -l cmd ""',
    '    set -l skip 0',
    '    for word in (commandline -opc)[2..-1]',
    '        if test $skip = 1',
    '            set skip 0',
    '            continue',
    '        end',
    '        switch "$cmd|$word"',
    ...arms,
    '        end',
    '    end',
    '    echo $cmd',
    'end',
    'function __engram_at',
    '    set -l cmd (__engram_cmd)',
    '    test "$cmd" = "$argv[1]"',
    'end',
    ...lines,
    '',
  ].join('\n');
}

export function completionScript(shell: Shell, root: CompletionNode): string {
  return shell === 'bash' ? bashScript(root) : shell === 'zsh' ? zshScript(root) : fishScript(root);
}
