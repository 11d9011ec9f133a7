/** What a receiver answers, before an adapter writes it in its framework's terms. */
export interface Answer {
  /** HTTP status: 200, 400, 401, 405, 409, 413 or 500. */
  status: number;
  /** Response headers (lower-case names). */
  headers: Record<string, string>;
  /** The JSON body, as text. */
  body: string;
}

/** An answer whose body is `value` as JSON. */
export function answer(status: number, value: unknown, extra: Record<string, string> = {}): Answer {
  return {
    status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...extra },
    body: JSON.stringify(value),
  };
}

/** A refusal: `{ "error": message }`. */
export function refusal(status: number, message: string, extra?: Record<string, string>): Answer {
  return answer(status, { error: message }, extra);
}
