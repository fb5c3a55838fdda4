// What JSON.parse gave, told apart: an object of named values (not null, not a list), the shape
// every message, index and record this project reads is before its fields are checked.

/** Whether `value` is a JSON object: not null, not an array. */
export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
