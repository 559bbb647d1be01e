// The one bridge between protobuf-es and grpc-js, used by both sides.
// protobuf-es service descriptors drive everything: method paths, streaming kinds and the
// (de)serialisers come from the descriptor, so a new RPC needs no hand-written glue.
import * as grpc from '@grpc/grpc-js';
import type { ServerSurfaceCall } from '@grpc/grpc-js/build/src/server-call.js';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import type { DescMessage, DescMethod, DescService, MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import { EngramError, ErrorKind, FIELD_METADATA_KEY, kindFromCode } from '../errors.ts';
import { invalidUtf8Field } from './utf8-field.ts';

type MethodShape = GenServiceMethods[string];

/** "package.Service/Method": how served methods are named to `serves` and `onDone`. */
const methodName = (service: DescService, method: DescMethod): string => `${service.typeName}/${method.name}`;

export function methodPath(service: DescService, method: DescMethod): string {
  return `/${methodName(service, method)}`;
}

// ---------------------------------------------------------------------------------------------
// Server side

/** What a handler learns about its call besides the request. */
export interface ServerCall {
  readonly method: string;
  readonly metadata: grpc.Metadata;
  /** Aborted when the client cancels or the deadline passes. */
  readonly signal: AbortSignal;
  /** When the client stops waiting (ms since the epoch), if it set a deadline. */
  readonly deadline?: number;
  /** Who is calling, as the server's `authenticate` resolved it. For a request of a bidirectional
   *  stream, reading it authenticates that request again and throws the refusal (an EngramError)
   *  when its token no longer passes. */
  readonly caller: unknown;
  /** The highest change number the call's writes committed (0: none), for `trailers`. */
  readonly changes: { wrote: number };
}

type UnaryHandler<M extends MethodShape> = (
  request: MessageShape<M['input']>,
  call: ServerCall,
) => Promise<MessageInitShape<M['output']>>;

type StreamHandler<M extends MethodShape> = (
  request: MessageShape<M['input']>,
  call: ServerCall,
) => AsyncIterable<MessageInitShape<M['output']>>;

/** A bidirectional stream served message by message: each request gets one reply, the requests
 *  run concurrently (in the order they arrived, at most STREAM_REQUESTS_IN_PROGRESS of a stream at
 *  once) and the replies go in whatever order they finish. `call` is the request's
 *  own: reading its caller authenticates the request again (a revoked token stops at once, not
 *  when the stream ends) and its `changes` count that request's writes alone. A handler answers
 *  every refusal, its caller's included, in its reply; one that throws is a bug: it is logged and
 *  the stream ends once every other request it took is answered. */
type MessageHandler<M extends MethodShape> = (
  request: MessageShape<M['input']>,
  call: ServerCall,
) => Promise<MessageInitShape<M['output']>>;

/** The implementation of a service: one async function per method, named by its localName. */
export type ServiceImpl<S extends GenServiceMethods> = {
  [K in keyof S]: S[K]['methodKind'] extends 'unary'
    ? UnaryHandler<S[K]>
    : S[K]['methodKind'] extends 'server_streaming'
      ? StreamHandler<S[K]>
      : S[K]['methodKind'] extends 'bidi_streaming'
        ? MessageHandler<S[K]>
        : never;
};

/** The implementation type of a generated service constant, e.g. ImplOf<typeof MemoryService>. */
export type ImplOf<T> = T extends GenService<infer S> ? ServiceImpl<S> : never;

/** Runs before every handler and says who is calling; throws an EngramError to refuse the call
 *  (e.g. a missing token). */
export type Authenticate = (call: { method: string; metadata: grpc.Metadata }) => unknown;

/** Called with every error that is not an EngramError (a bug): the daemon logs it. */
export type InternalErrorSink = (method: string, error: unknown) => void;

export interface ServeOptions {
  authenticate?: Authenticate;
  /** Whether a method ("package.Service/Method") is served; others answer UNIMPLEMENTED, as an
   *  older daemon that never had them would. Default: every implemented method. */
  serves?: (method: string) => boolean;
  onInternalError?: InternalErrorSink;
  /** Runs before authentication and the handler; throws an EngramError to refuse the call. */
  before?: (call: Omit<ServerCall, 'caller'>) => Promise<void>;
  /** Trailing metadata for a unary call's answer, from what its handler did. */
  trailers?: (call: ServerCall) => Record<string, string> | undefined;
  /** Called once a served call has ended, with its method ("package.Service/Method") and status code. */
  onDone?: (method: string, code: number) => void;
  /** Called each time a bidirectional stream answers one request. */
  onStreamMessage?: (method: string) => void;
  /** Called each time the requests one bidirectional stream has in progress change (see
   *  StreamBacklog): `change` is +1 for a request taken, negative for those answered or given up,
   *  and `inProgress` is that stream's count after the change. */
  onStreamLoad?: (method: string, change: number, inProgress: number) => void;
  /** Aborted when the server stops: an open bidirectional stream then takes no further request
   *  and ends (OK) once it has answered those it took, so a stop does not wait for its clients
   *  to close long-lived streams. */
  draining?: AbortSignal;
}

export function addService<S extends GenServiceMethods>(
  server: grpc.Server,
  service: GenService<S>,
  impl: Partial<ServiceImpl<S>>,
  options: ServeOptions = {},
): void {
  const definition: Record<string, grpc.MethodDefinition<Buffer, unknown>> = {};
  const handlers: grpc.UntypedServiceImplementation = {};
  for (const method of service.methods) {
    definition[method.localName] = methodDefinition(service, method);
    const handler = (impl as Record<string, unknown>)[method.localName];
    const served = handler !== undefined && (options.serves?.(methodName(service, method)) ?? true);
    handlers[method.localName] = served
      ? serverHandler(service, method, handler, options)
      : unimplementedHandler(service, method, options);
  }
  server.addService(definition, handlers);
}

/** Requests stay raw bytes until the handler decodes them, so a malformed request (e.g. invalid
 *  UTF-8 in a string) becomes INVALID_ARGUMENT instead of grpc-js's generic INTERNAL. */
function methodDefinition(service: DescService, method: DescMethod): grpc.MethodDefinition<Buffer, unknown> {
  return {
    path: methodPath(service, method),
    originalName: method.localName,
    requestStream: method.methodKind === 'bidi_streaming',
    responseStream: method.methodKind === 'server_streaming' || method.methodKind === 'bidi_streaming',
    requestSerialize: (bytes: Buffer) => bytes,
    requestDeserialize: (bytes: Buffer) => bytes,
    responseSerialize: (message: unknown) =>
      Buffer.from(toBinary(method.output, create(method.output, message as MessageInitShape<DescMessage>))),
    responseDeserialize: (bytes: Buffer) => fromBinary(method.output, bytes),
  };
}

function decodeRequest(method: DescMethod, bytes: Buffer): MessageShape<DescMessage> {
  try {
    return fromBinary(method.input, bytes);
  } catch (error) {
    const field = invalidUtf8Field(method.input, bytes);
    if (field) throw new EngramError(ErrorKind.InvalidArgument, `${field}: must be valid UTF-8`, field);
    throw new EngramError(ErrorKind.InvalidArgument, `malformed ${method.input.typeName}: ${(error as Error).message}`);
  }
}

/**
 * The call's context, and `settle` for when its handler is done. grpc-js reports "cancelled" when
 * any call's stream closes, finished or not; only a cancel while the handler runs means anything,
 * and aborting is not free (it builds a DOMException), so a settled call is never aborted.
 */
async function serverCall(service: DescService, method: DescMethod, call: ServerSurfaceCall, options: ServeOptions): Promise<{ ctx: ServerCall; settle: () => void }> {
  const controller = new AbortController();
  let running = true;
  call.on('cancelled', () => {
    if (running) controller.abort();
  });
  const name = `${service.name}/${method.name}`;
  const deadline = Number(call.getDeadline());
  const base = { method: name, metadata: call.metadata, signal: controller.signal, changes: { wrote: 0 }, ...(Number.isFinite(deadline) ? { deadline } : {}) };
  // `before` first: what it waits for (another daemon's changes) may be what authenticates the
  // caller (a token made there).
  await options.before?.(base);
  const caller = options.authenticate?.({ method: name, metadata: call.metadata });
  return { ctx: { ...base, caller }, settle: () => (running = false) };
}

function serverHandler(
  service: DescService,
  method: DescMethod,
  handler: unknown,
  options: ServeOptions,
): grpc.UntypedHandleCall {
  const fullName = methodName(service, method);
  if (method.methodKind === 'bidi_streaming') return bidiHandler(service, method, handler as MessageHandler<MethodShape>, options);
  if (method.methodKind === 'server_streaming') {
    const stream = handler as StreamHandler<MethodShape>;
    return async (call: grpc.ServerWritableStream<Buffer, unknown>) => {
      let settle = () => {};
      try {
        const started = await serverCall(service, method, call, options);
        const ctx = started.ctx;
        settle = started.settle;
        for await (const message of stream(decodeRequest(method, call.request), ctx)) {
          if (ctx.signal.aborted) return;
          call.write(message);
        }
        call.end();
        options.onDone?.(fullName, grpc.status.OK);
      } catch (error) {
        const status = toServiceError(error, method, options);
        options.onDone?.(fullName, status.code!);
        call.emit('error', status);
      } finally {
        settle();
      }
    };
  }
  const unary = handler as UnaryHandler<MethodShape>;
  return (call: grpc.ServerUnaryCall<Buffer, unknown>, callback: grpc.sendUnaryData<unknown>) => {
    let settle = () => {};
    let ctx: ServerCall | undefined;
    Promise.resolve()
      .then(async () => {
        const started = await serverCall(service, method, call, options);
        settle = started.settle;
        ctx = started.ctx;
        return unary(decodeRequest(method, call.request), started.ctx);
      })
      .then(
        (response) => {
          settle();
          options.onDone?.(fullName, grpc.status.OK);
          const extra = ctx && options.trailers?.(ctx);
          if (!extra) return callback(null, response);
          const trailer = new grpc.Metadata();
          for (const [key, value] of Object.entries(extra)) trailer.set(key, value);
          callback(null, response, trailer);
        },
        (error) => {
          settle();
          const status = toServiceError(error, method, options);
          options.onDone?.(fullName, status.code!);
          callback(status);
        },
      );
  };
}

/** How many requests one bidirectional stream may have in progress (taken, reply not yet sent) at
 *  once. At the bound the daemon stops reading the stream until a reply goes out: nothing is
 *  refused, the requests wait on the client's side of the connection (HTTP/2 flow control holds
 *  the sender), and a client that sends without waiting costs the daemon a bounded amount of
 *  memory and work instead of starting all it sent at once. Eight lets four namespaces of one
 *  connection write at the client library's pace (two batches in flight each); a stream's batches
 *  share the daemon's one write path, so more at once would only wait inside the daemon.
 *  Besides these grpc-js reads ahead a few requests it has not handed over (its read buffer, 16
 *  messages), which are bytes, not work. */
export const STREAM_REQUESTS_IN_PROGRESS = 8;

/** The requests one bidirectional stream has in progress: a request counts from the moment it is
 *  taken until its reply has been handed to the connection (its write called back), not merely
 *  queued, so replies a client does not read weigh on its stream as the work they came from does. */
class StreamBacklog {
  private count = 0;
  private closed = false;

  constructor(private readonly report: (change: number, inProgress: number) => void) {}

  get size(): number {
    return this.count;
  }

  taken(): void {
    this.count++;
    this.report(1, this.count);
  }

  /** One request answered, or given up (its handler failed, or its stream was cancelled). */
  done(): void {
    if (this.closed) return;
    this.count--;
    this.report(-1, this.count);
  }

  /** The stream is gone: grpc-js never calls back the write of a reply it dropped when the client
   *  went away, so whatever is still counted will never be answered. */
  close(): void {
    if (!this.closed && this.count > 0) this.report(-this.count, 0);
    this.count = 0;
    this.closed = true;
  }
}

/** Serves a bidirectional stream message by message (see MessageHandler). The stream ends once
 *  the client has sent its last request (or the server drains, or the client goes away) and every
 *  request taken is answered: a request is either answered or never handled.
 *
 *  Once it has taken a request the stream only ever ends with OK. grpc-js clients report an error
 *  status as soon as it arrives and drop replies not yet read (grpc/grpc-node#2764), so a reply
 *  followed by an error could be lost, and a write that committed would look refused. Refusals are
 *  therefore answered in their own replies (the handler's), and a request that cannot even be
 *  read ends the stream with its error only when nothing was taken before it.
 *
 *  A client that sends without waiting is held to STREAM_REQUESTS_IN_PROGRESS requests in progress
 *  by backpressure (the stream is paused at the bound), never by refusing what it sent. */
function bidiHandler(service: DescService, method: DescMethod, handler: MessageHandler<MethodShape>, options: ServeOptions): grpc.UntypedHandleCall {
  const fullName = methodName(service, method);
  return async (call: grpc.ServerDuplexStream<Buffer, unknown>) => {
    let stream: { ctx: ServerCall; settle: () => void };
    try {
      stream = await serverCall(service, method, call, options);
    } catch (error) {
      const status = toServiceError(error, method, options);
      options.onDone?.(fullName, status.code!);
      call.emit('error', status);
      return;
    }
    let open = 0;
    let taken = 0;
    let taking = true;
    let failure: Partial<grpc.StatusObject> | null = null;
    let forgetDrain = () => {};
    const backlog = new StreamBacklog((change, inProgress) => options.onStreamLoad?.(fullName, change, inProgress));
    call.once('close', () => backlog.close());
    // Resumes a stream held at the bound (see STREAM_REQUESTS_IN_PROGRESS) as a reply goes out;
    // one that stopped taking requests stays paused.
    const done = () => {
      backlog.done();
      if (taking && backlog.size < STREAM_REQUESTS_IN_PROGRESS && call.isPaused()) call.resume();
    };
    const finish = () => {
      if (taking || open > 0) return;
      stream.settle();
      options.onDone?.(fullName, failure?.code ?? grpc.status.OK);
      if (call.cancelled) return;
      if (failure) call.emit('error', failure);
      else call.end();
    };
    const stop = (status?: Partial<grpc.StatusObject>) => {
      if (!taking) return;
      taking = false;
      failure = status && taken === 0 ? status : null;
      forgetDrain();
      call.pause();
      finish();
    };
    // Each request is authenticated again as the handler reads its caller: a token revoked while
    // the stream is open is refused at its next request, in that request's reply.
    const caller = () => options.authenticate?.({ method: stream.ctx.method, metadata: call.metadata });
    call.on('data', (bytes: Buffer) => {
      if (!taking) return; // after the stream stopped taking requests: never handled
      let request: MessageShape<DescMessage>;
      try {
        request = decodeRequest(method, bytes);
      } catch (error) {
        stop(toServiceError(error, method, options));
        return;
      }
      open++;
      taken++;
      backlog.taken();
      // Paused, the stream delivers no further request: those the client sends meanwhile wait in
      // grpc-js's read-ahead and then in HTTP/2 flow control, which stops the sender.
      if (backlog.size >= STREAM_REQUESTS_IN_PROGRESS) call.pause();
      handler(request, { ...stream.ctx, get caller() { return caller(); }, changes: { wrote: 0 } })
        .then(
          (reply) => {
            options.onStreamMessage?.(fullName);
            if (call.cancelled) done();
            else call.write(reply, done);
          },
          // Unanswerable (a bug): logged, and the stream ends (with OK: see above), so the client
          // finds this request unanswered, which it reports as uncertain.
          (error: unknown) => {
            stop(toServiceError(error, method, options));
            done();
          },
        )
        .finally(() => {
          open--;
          finish();
        });
    });
    call.on('end', () => stop());
    call.on('error', () => stop());
    // A client that goes away (cancel, disconnect) gets neither 'end' nor 'error' from grpc-js.
    call.on('cancelled', () => stop());
    if (options.draining?.aborted) stop();
    else if (options.draining) forgetDrain = onDrain(options.draining, () => stop());
  };
}

/** What stops each open stream when a signal drains them: one listener per signal, however many
 *  streams are open (a listener per stream would pile up on the daemon's one signal). */
const drainers = new WeakMap<AbortSignal, Set<() => void>>();

/** Runs `stop` when `signal` aborts; returns what forgets it (the stream ended first). */
function onDrain(signal: AbortSignal, stop: () => void): () => void {
  let stops = drainers.get(signal);
  if (!stops) {
    const all = new Set<() => void>();
    drainers.set(signal, all);
    signal.addEventListener('abort', () => [...all].forEach((f) => f()), { once: true });
    stops = all;
  }
  stops.add(stop);
  return () => stops.delete(stop);
}

function unimplementedHandler(service: DescService, method: DescMethod, options: ServeOptions): grpc.UntypedHandleCall {
  const error = (): Partial<grpc.StatusObject> => {
    options.onDone?.(methodName(service, method), grpc.status.UNIMPLEMENTED);
    return { code: grpc.status.UNIMPLEMENTED, details: `${service.typeName}.${method.name} is not served by this daemon` };
  };
  if (method.methodKind === 'server_streaming' || method.methodKind === 'bidi_streaming') {
    return (call: grpc.ServerWritableStream<Buffer, unknown>) => call.emit('error', error());
  }
  return (_call: grpc.ServerUnaryCall<Buffer, unknown>, callback: grpc.sendUnaryData<unknown>) => callback(error());
}

/** A status with the error's field in its metadata, where RpcError reads it back. */
export function errorStatus(code: number, details: string, field?: string): grpc.StatusObject {
  const metadata = new grpc.Metadata();
  if (field) metadata.set(FIELD_METADATA_KEY, field);
  return { code, details, metadata };
}

function toServiceError(error: unknown, method: DescMethod, options: ServeOptions): Partial<grpc.StatusObject> {
  if (error instanceof EngramError) return errorStatus(error.code, error.message, error.field);
  options.onInternalError?.(method.name, error);
  // Never leak a stack trace or internal message to a caller.
  return { code: grpc.status.INTERNAL, details: 'internal error (see the daemon log)' };
}

// ---------------------------------------------------------------------------------------------
// Client side

export interface CallOptions {
  /** Milliseconds from now. */
  timeoutMs?: number;
  metadata?: grpc.Metadata;
  signal?: AbortSignal;
  /** Called with a unary call's trailing metadata once it completes. */
  onTrailers?: (trailers: grpc.Metadata) => void;
}

type UnaryMethod<M extends MethodShape> = (
  request: MessageInitShape<M['input']>,
  options?: CallOptions,
) => Promise<MessageShape<M['output']>>;

type StreamMethod<M extends MethodShape> = (
  request: MessageInitShape<M['input']>,
  options?: CallOptions,
) => AsyncIterable<MessageShape<M['output']>>;

/** One open bidirectional stream: requests go as they are sent, replies come as they are made. */
export interface BidiCall<I extends DescMessage, O extends DescMessage> {
  /** Encodes and sends one request. One the wire cannot carry is refused (RpcError,
   *  INVALID_ARGUMENT) and nothing of it is sent. */
  send(request: MessageInitShape<I>): void;
  /** No further requests: the server ends the stream once it has answered those it took. */
  end(): void;
  cancel(): void;
  /** The replies until the stream ends; an RpcError if it ends with an error status. */
  readonly replies: AsyncIterable<MessageShape<O>>;
}

type BidiMethod<M extends MethodShape> = (options?: CallOptions) => BidiCall<M['input'], M['output']>;

/** A typed client: one promise-returning (or async-iterable) function per method. */
export type ServiceClient<S extends GenServiceMethods> = {
  [K in keyof S]: S[K]['methodKind'] extends 'unary'
    ? UnaryMethod<S[K]>
    : S[K]['methodKind'] extends 'server_streaming'
      ? StreamMethod<S[K]>
      : S[K]['methodKind'] extends 'bidi_streaming'
        ? BidiMethod<S[K]>
        : never;
};

/** The client type of a generated service constant, e.g. ClientOf<typeof MemoryService>. */
export type ClientOf<T> = T extends GenService<infer S> ? ServiceClient<S> : never;

/** A failed call as seen by a client: the status code, and the field for INVALID_ARGUMENT. */
/** A status's details as a caller should read them. grpc-js words a deadline it enforced itself
 *  for its own developers ("Deadline exceeded after 30.006s,metadata filters: 0.001s,LB pick:
 *  0.004s,remote_addr=…"); the caller is told what happened instead. */
function callerWords(status: grpc.StatusObject | grpc.ServiceError): string {
  const deadline = /^Deadline exceeded after ([\d.]+)s/.exec(status.details ?? '');
  if (status.code !== grpc.status.DEADLINE_EXCEEDED || !deadline) return status.details;
  const seconds = Number(deadline[1]);
  return `the daemon did not answer within ${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s (busy, paused or stopped)`;
}

export class RpcError extends EngramError {
  readonly grpcCode: number;
  constructor(status: grpc.StatusObject | grpc.ServiceError) {
    const fieldValues = status.metadata?.get(FIELD_METADATA_KEY) ?? [];
    const field = fieldValues.length > 0 ? String(fieldValues[0]) : undefined;
    super(kindFromCode(status.code), callerWords(status) || grpc.status[status.code] || 'error', field);
    this.name = 'RpcError';
    this.grpcCode = status.code;
  }
}

export function createServiceClient<S extends GenServiceMethods>(
  service: GenService<S>,
  client: grpc.Client,
  defaults: () => CallOptions = () => ({}),
): ServiceClient<S> {
  const methods: Record<string, unknown> = {};
  for (const method of service.methods) {
    methods[method.localName] =
      method.methodKind === 'server_streaming'
        ? streamMethod(service, method, client, defaults)
        : method.methodKind === 'bidi_streaming'
          ? bidiMethod(service, method, client, defaults)
          : unaryMethod(service, method, client, defaults);
  }
  return methods as ServiceClient<S>;
}

function grpcCallOptions(options: CallOptions): grpc.CallOptions {
  return options.timeoutMs === undefined ? {} : { deadline: Date.now() + options.timeoutMs };
}

function mergeOptions(defaults: CallOptions, options: CallOptions | undefined): CallOptions {
  const metadata = defaults.metadata?.clone() ?? new grpc.Metadata();
  if (options?.metadata) metadata.merge(options.metadata);
  return { ...defaults, ...options, metadata };
}

/** Encodes a request before its call starts: a value the wire cannot carry (a negative or
 *  fractional count, a number too large for its field) is then the caller's mistake, refused as
 *  invalid input naming the field, and nothing is sent — grpc-js would report it as an internal
 *  error of the call. */
function encodeRequest(method: DescMethod, message: MessageInitShape<DescMessage>): Buffer {
  try {
    return Buffer.from(toBinary(method.input, create(method.input, message)));
  } catch (error) {
    throw unencodable(error);
  }
}

/** protobuf-es says "cannot encode field pkg.Message.field_name to binary: invalid uint32: -3". */
function unencodable(error: unknown): RpcError {
  const reason = error instanceof Error ? error.message : String(error);
  const match = /cannot encode field [\w.]*?\.(\w+) to binary: (.*)$/s.exec(reason);
  const field = match?.[1] ?? '';
  const why = match ? wireLimit(match[2]!) : reason;
  return new RpcError(errorStatus(grpc.status.INVALID_ARGUMENT, field ? `${field}: ${why}` : why, field));
}

/** What each integer type of the wire holds, as numbers a caller can compare a value with. */
const WIRE_RANGES: Record<string, string> = {
  int32: 'between -2147483648 and 2147483647',
  uint32: 'between 0 and 4294967295',
  int64: 'between -9223372036854775808 and 9223372036854775807',
  uint64: 'between 0 and 18446744073709551615',
};

/** The wire's own words for a number it cannot carry, said as a rule the caller can follow, in
 *  the words the daemon's own range checks use ("must be a whole number between 1 and 1000"). */
function wireLimit(reason: string): string {
  const m = /^invalid (u?int(?:32|64)): (.*)$/.exec(reason);
  if (!m) return reason;
  return `must be a whole number ${WIRE_RANGES[m[1]!]}, got ${m[2]}`;
}

function unaryMethod(service: DescService, method: DescMethod, client: grpc.Client, defaults: () => CallOptions) {
  return (request: MessageInitShape<DescMessage>, options?: CallOptions) =>
    new Promise((resolve, reject) => {
      const bytes = encodeRequest(method, request);
      const merged = mergeOptions(defaults(), options);
      const call = client.makeUnaryRequest(
        methodPath(service, method),
        () => bytes,
        (bytes: Buffer) => fromBinary(method.output, bytes),
        request,
        merged.metadata!,
        grpcCallOptions(merged),
        (error, response) => (error ? reject(new RpcError(error)) : resolve(response)),
      );
      if (merged.onTrailers) call.on('status', (status: grpc.StatusObject) => merged.onTrailers!(status.metadata));
      merged.signal?.addEventListener('abort', () => call.cancel(), { once: true });
    });
}

function streamMethod(service: DescService, method: DescMethod, client: grpc.Client, defaults: () => CallOptions) {
  return async function* (request: MessageInitShape<DescMessage>, options?: CallOptions) {
    const bytes = encodeRequest(method, request);
    const merged = mergeOptions(defaults(), options);
    const call = client.makeServerStreamRequest(
      methodPath(service, method),
      () => bytes,
      (bytes: Buffer) => fromBinary(method.output, bytes),
      request,
      merged.metadata!,
      grpcCallOptions(merged),
    );
    merged.signal?.addEventListener('abort', () => call.cancel(), { once: true });
    try {
      for await (const message of call) yield message;
    } catch (error) {
      throw new RpcError(error as grpc.ServiceError);
    }
  };
}

/** A long-lived stream has no deadline: `timeoutMs` bounds how long it may take to open, not
 *  how long it stays open (a caller times each request itself). */
function bidiMethod(service: DescService, method: DescMethod, client: grpc.Client, defaults: () => CallOptions) {
  return (options?: CallOptions): BidiCall<DescMessage, DescMessage> => {
    const merged = mergeOptions(defaults(), options);
    const call = client.makeBidiStreamRequest(
      methodPath(service, method),
      (bytes: Buffer) => bytes,
      (bytes: Buffer) => fromBinary(method.output, bytes),
      merged.metadata!,
      {},
    );
    merged.signal?.addEventListener('abort', () => call.cancel(), { once: true });
    async function* replies() {
      try {
        for await (const message of call) yield message as MessageShape<DescMessage>;
      } catch (error) {
        throw new RpcError(error as grpc.ServiceError);
      }
    }
    return {
      send: (request) => void call.write(encodeRequest(method, request)),
      end: () => call.end(),
      cancel: () => call.cancel(),
      replies: replies(),
    };
  };
}
