import t from 'tap';
import { inspectImage, sniffImage } from '../../../src/api/emoji/image.js';
import { APNG, APNG_STILL, GIF_ANIMATED, GIF_FIRST_FRAME, GIF_STILL, PNG, WEBP_ANIMATED, WEBP_STILL } from './fixtures.js';

t.test('inspectImage: format, animation and the first frame', async (t) => {
  t.same(inspectImage(PNG), { format: 'png', animated: false }, 'a still PNG');
  t.same(inspectImage(GIF_FIRST_FRAME), { format: 'gif', animated: false }, 'a one-frame GIF is still');
  const gif = inspectImage(GIF_ANIMATED)!;
  t.equal(gif.animated, true, 'a two-frame GIF is animated');
  t.same(Buffer.from(gif.still!), GIF_FIRST_FRAME, 'its still is the file up to the end of the first frame');
  t.same(inspectImage(Buffer.from(gif.still!)), { format: 'gif', animated: false }, 'and is itself still');
  t.not(GIF_STILL.length, 0);
  const apng = inspectImage(APNG)!;
  t.equal(apng.animated, true, 'an APNG with two frames is animated');
  t.same(Buffer.from(apng.still!), APNG_STILL, 'its still is the PNG without the animation chunks');
  const webp = inspectImage(WEBP_ANIMATED)!;
  t.equal(webp.animated, true, 'an animated WebP');
  t.same(Buffer.from(webp.still!), WEBP_STILL, 'its still is the first frame as a simple WebP');
  t.same(inspectImage(Buffer.from([0xff, 0xd8, 0xff, 0xe0])), { format: 'jpeg', animated: false }, 'JPEG');
});

t.test('inspectImage: what is not an image, or is cut short', async (t) => {
  t.equal(sniffImage(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')), undefined, 'SVG is not accepted');
  t.equal(inspectImage(Buffer.from('hello')), undefined, 'text');
  t.equal(inspectImage(GIF_ANIMATED.subarray(0, 30)), undefined, 'a truncated GIF');
  t.equal(inspectImage(APNG.subarray(0, 40)), undefined, 'a truncated PNG');
  t.equal(inspectImage(PNG.subarray(0, 8)), undefined, 'a PNG signature alone');
});
