// CRC-32 as gzip's trailer and a zip's headers hold it (ISO 3309, the reflected polynomial
// 0xEDB88320): the check `gzip -t` and `unzip -t` make, made here too, so an archive whose
// bytes were damaged is refused as they refuse it. Built on nothing: the client runs in browsers.

/** TABLES[k][byte]: the CRC-32 of `byte` followed by k zero bytes, so four bytes are taken a step (slicing by 4). */
const TABLES = (() => {
  const tables = Array.from({ length: 4 }, () => new Uint32Array(256));
  const [first, second, third, fourth] = tables as [Uint32Array, Uint32Array, Uint32Array, Uint32Array];
  for (let byte = 0; byte < 256; byte++) {
    let crc = byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
    first[byte] = crc;
  }
  for (let byte = 0; byte < 256; byte++) {
    second[byte] = (first[(first[byte] as number) & 0xff] as number) ^ ((first[byte] as number) >>> 8);
    third[byte] = (first[(second[byte] as number) & 0xff] as number) ^ ((second[byte] as number) >>> 8);
    fourth[byte] = (first[(third[byte] as number) & 0xff] as number) ^ ((third[byte] as number) >>> 8);
  }
  return { first, second, third, fourth };
})();

/** The CRC-32 of `bytes`, continuing the CRC-32 `previous` of the bytes before them (0 for none). */
export function crc32(bytes: Uint8Array, previous = 0): number {
  const { first, second, third, fourth } = TABLES;
  let crc = ~previous;
  let at = 0;
  for (const whole = bytes.length - (bytes.length % 4); at < whole; at += 4) {
    crc ^=
      (bytes[at] as number) |
      ((bytes[at + 1] as number) << 8) |
      ((bytes[at + 2] as number) << 16) |
      ((bytes[at + 3] as number) << 24);
    crc =
      (fourth[crc & 0xff] as number) ^
      (third[(crc >>> 8) & 0xff] as number) ^
      (second[(crc >>> 16) & 0xff] as number) ^
      (first[crc >>> 24] as number);
  }
  for (; at < bytes.length; at++) crc = (first[(crc ^ (bytes[at] as number)) & 0xff] as number) ^ (crc >>> 8);
  return ~crc >>> 0;
}

/** A CRC-32 as messages show it: 8 hexadecimal digits. */
export const crcHex = (crc: number): string => crc.toString(16).padStart(8, '0');
