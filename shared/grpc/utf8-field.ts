// Which string field of an encoded message holds invalid UTF-8? protobuf-es rejects such a
// message as a whole; this walks the wire format with the descriptor so the INVALID_ARGUMENT
// error can name the field (e.g. "text" or "fields.meta_json"), as every input error must.
import type { DescMessage } from '@bufbuild/protobuf';
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function invalidUtf8Field(desc: DescMessage, bytes: Uint8Array, prefix = ''): string | undefined {
  try {
    const reader = new BinaryReader(bytes);
    while (reader.pos < reader.len) {
      const [number, wireType] = reader.tag();
      const field = desc.fields.find((f) => f.number === number);
      if (!field || wireType !== WireType.LengthDelimited) {
        reader.skip(wireType, number);
        continue;
      }
      const payload = reader.bytes();
      const name = prefix + field.name;
      if (field.fieldKind === 'message') {
        const inner = invalidUtf8Field(field.message, payload, `${name}.`);
        if (inner) return inner;
      } else if ((field.fieldKind === 'scalar' || field.fieldKind === 'list') && isString(field)) {
        try {
          strict.decode(payload);
        } catch {
          return name;
        }
      }
    }
  } catch {
    return undefined; // not even well-formed wire data: no field to name
  }
  return undefined;
}

function isString(field: DescMessage['fields'][number]): boolean {
  // ScalarType.STRING = 9, for both singular and repeated scalar fields.
  return (field.fieldKind === 'scalar' || (field.fieldKind === 'list' && field.listKind === 'scalar')) && field.scalar === 9;
}
