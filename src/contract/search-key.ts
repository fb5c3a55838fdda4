/**
 * The search key of a text: Unicode NFKD, combining marks removed, lower case, then every
 * character that is not a-z or 0-9 dropped. "Oak Tree", "OAKTREE" and "oak_tree" share the
 * key "oaktree". The build, every runtime and the client import this one function.
 */
export function searchKey(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}
