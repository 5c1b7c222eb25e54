import type { Observable, Subscription } from 'rxjs';

/** The headers of a Server-Sent Events response. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/**
 * A Web `Response` streaming text frames (SSE frames): a `ReadableStream` that subscribes when
 * the body is read and unsubscribes when the client goes away (the stream is cancelled), which
 * cancels whatever the frames come from. An error after the start ends the body with the frames
 * `onError` gives (else it is cut off).
 */
export function framesResponse(
  frames$: Observable<string>,
  init: ResponseInit = {},
  onError?: (error: unknown) => readonly string[],
): Response {
  const encoder = new TextEncoder();
  let subscription: Subscription | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      subscription = frames$.subscribe({
        next: (frame) => controller.enqueue(encoder.encode(frame)),
        error: (error: unknown) => {
          for (const frame of onError?.(error) ?? []) controller.enqueue(encoder.encode(frame));
          controller.close();
        },
        complete: () => controller.close(),
      });
    },
    cancel() {
      subscription?.unsubscribe();
    },
  });
  const headers = new Headers(init.headers);
  for (const [k, v] of Object.entries(SSE_HEADERS)) if (!headers.has(k)) headers.set(k, v);
  return new Response(body, { ...init, headers });
}
