/**
 * Work done by the checks since the process started, counted where it is done: distance cells
 * and names looked at by suggestions, and `listSource` entries indexed. Internal: tests assert
 * with it the work a hostile input causes (not its wall time, which a loaded machine blurs).
 * It is no option and not exported by any entry.
 */
export const checkWork = { cells: 0, listEntries: 0 };
