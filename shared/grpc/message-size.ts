// How large one gRPC message may be, on both ends. grpc-js's 4 MiB default is below what the
// daemon's own limits allow in one answer (a page of 1,000 facts of 32 KiB each, a recall at top_k
// 1,000, a batch of 1,000 writes), so a valid call could fail with RESOURCE_EXHAUSTED.
export const MAX_MESSAGE_BYTES = 128 * 1024 * 1024;

export const MESSAGE_SIZE_OPTIONS = {
  'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
  'grpc.max_send_message_length': MAX_MESSAGE_BYTES,
} as const;
