/**
 * `GET /favicon.ico`: a 16×16 icon (a shopping bag) drawn here as an ICO file, so browsers opening
 * /docs or GraphiQL get an icon instead of a 404, with no binary file in the repository.
 */
import { type Request, type Response, Router } from 'express';

// One character per pixel, top row first: `#` bag, `o` handle, `.` transparent.
const PIXELS = [
  '................',
  '.....oooooo.....',
  '....oo....oo....',
  '....o......o....',
  '....o......o....',
  '..############..',
  '..############..',
  '..############..',
  '..####.##.####..',
  '..####.##.####..',
  '..############..',
  '..############..',
  '..############..',
  '..############..',
  '..############..',
  '................',
];

/** BGRA of each pixel kind. */
const COLOURS: Record<string, [number, number, number, number]> = {
  '#': [0x3c, 0x8a, 0xe8, 0xff], // orange bag
  o: [0x3a, 0x2e, 0x2a, 0xff], // dark handle
  '.': [0, 0, 0, 0],
};

/** An ICO holding one 32-bit BMP image (what every browser reads). */
function icoFile(): Buffer {
  const size = PIXELS.length;
  const pixels = Buffer.alloc(size * size * 4);
  // BMP rows run bottom-up.
  PIXELS.forEach((row, y) => {
    [...row].forEach((c, x) => {
      Buffer.from(COLOURS[c] ?? COLOURS['.']!).copy(pixels, ((size - 1 - y) * size + x) * 4);
    });
  });
  const mask = Buffer.alloc(size * 4); // 1 bit per pixel, rows padded to 4 bytes; alpha decides instead
  const info = Buffer.alloc(40);
  info.writeUInt32LE(40, 0); // BITMAPINFOHEADER
  info.writeInt32LE(size, 4);
  info.writeInt32LE(size * 2, 8); // XOR image + AND mask
  info.writeUInt16LE(1, 12); // planes
  info.writeUInt16LE(32, 14); // bits per pixel
  const image = Buffer.concat([info, pixels, mask]);
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(size, 6);
  header.writeUInt8(size, 7);
  header.writeUInt16LE(1, 10); // planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(image.length, 14);
  header.writeUInt32LE(header.length, 18); // offset of the image
  return Buffer.concat([header, image]);
}

/** The icon, cached by browsers for 30 days (it changes, if ever, with a redesign, not a release). */
export function faviconRoutes(): Router {
  const icon = icoFile();
  const router = Router();
  router.get('/favicon.ico', (_req: Request, res: Response) => {
    res.set('Cache-Control', 'public, max-age=2592000').type('image/x-icon').send(icon);
  });
  return router;
}
