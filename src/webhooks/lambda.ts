import type { OnDelivery, WebhookReceiverOptions } from './options.js';
import { BodyProblem, type BodyRead, rawBody, tooLargeProblem } from './read-body.js';
import { createReceiver } from './receive.js';

/**
 * An AWS Lambda HTTP event: API Gateway REST (v1), HTTP API (v2), a function URL or an ALB
 * target; written out so the types need no `@types/aws-lambda`.
 */
export interface LambdaHttpEvent {
  /** v1 and ALB. */
  httpMethod?: string;
  /** v2 and function URLs: `requestContext.http.method`. */
  requestContext?:
    | {
        /** v2 and function URLs. */
        http?: {
          /** The request's method, e.g. `'POST'`. */
          method?: string;
        };
      }
    | null
    | undefined;
  /** The request's headers (v2: copies of one header joined with commas). */
  headers?: Record<string, string | undefined> | null;
  /** v1 and ALB with multi-value headers on: every copy of each header. */
  multiValueHeaders?: Record<string, string[] | undefined> | null;
  /** The body as text, or base64 when `isBase64Encoded`. */
  body?: string | null;
  /** Whether `body` is base64. */
  isBase64Encoded?: boolean;
}

/** What the handler resolves to: the shape every HTTP integration of Lambda accepts. */
export interface LambdaHttpResult {
  /** The HTTP status. */
  statusCode: number;
  /** The response headers. */
  headers: Record<string, string>;
  /** The JSON body, as text. */
  body: string;
}

/**
 * A receiver as an AWS Lambda handler, for API Gateway (v1 and v2), function-URL and ALB
 * events, base64 bodies included. Answers as {@link createWebMiddleware}.
 *
 * @example
 * export const handler = createLambdaHandler({ headerName: 'X-Hook-Secret', headerValue: secret }, onDelivery);
 * @throws ClaimsValidationError at once for options that could accept every request.
 */
export function createLambdaHandler<T = unknown>(
  options: WebhookReceiverOptions<T>,
  onDelivery: OnDelivery<T>,
): (event: LambdaHttpEvent) => Promise<LambdaHttpResult> {
  const receive = createReceiver(options, onDelivery);
  return async (event) => {
    const { status, headers, body } = await receive({
      method: event?.requestContext?.http?.method ?? event?.httpMethod,
      headers: { ...event?.headers, ...event?.multiValueHeaders },
      read: async (max) => eventBody(event, max),
    });
    return { statusCode: status, headers, body };
  };
}

function eventBody(event: LambdaHttpEvent, max: number): BodyRead {
  const { body } = event;
  if (body === null || body === undefined) return undefined;
  if (!event.isBase64Encoded) return rawBody(body, max);
  // Decoded, base64 is 3/4 of its length: a body far over the cap is refused undecoded.
  if (body.length > Math.ceil(max / 3) * 4 + 4) return tooLargeProblem(max);
  let text: string;
  try {
    text = atob(body);
  } catch {
    return new BodyProblem(400, 'the body is marked base64 but is not valid base64');
  }
  return rawBody(
    Uint8Array.from(text, (c) => c.charCodeAt(0)),
    max,
  );
}
