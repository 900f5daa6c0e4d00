// The web demo in headless Chromium: serves the folder web/build.sh made, opens the page,
// waits for the level to load and the character to land, walks right and jumps with key
// presses, waits for the landing that follows, takes a screenshot and checks that it shows
// the level's tiles, the background, the character and the debug panel (as the native window
// test does). Prints WEB OK or WEB FAIL and exits 0 or 1.
//
//     node web/test.mjs <folder> <screenshot.png>
//
// Needs playwright-core (npm) and Chromium at /usr/bin/chromium (or $CHROMIUM).
import { chromium } from "playwright-core";
import { createServer } from "node:http";
import { readFile, writeFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";

const [folder, shot] = process.argv.slice(2);
if (!folder || !shot) {
  console.error("usage: node web/test.mjs <folder> <screenshot.png>");
  process.exit(2);
}
const types = {
  ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm",
  ".png": "image/png", ".tmx": "application/xml", ".tsx": "application/xml",
  ".txt": "text/plain", ".ldtk": "application/json",
};

// The folder over HTTP on a free port of 127.0.0.1.
const server = createServer(async (request, response) => {
  const path = normalize(decodeURIComponent(new URL(request.url, "http://x").pathname));
  const file = join(folder, path.endsWith("/") ? path + "index.html" : path);
  try {
    const body = await readFile(file);
    response.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" });
    response.end(body);
  } catch {
    response.writeHead(404);
    response.end();
  }
});
await new Promise((done) => server.listen(0, "127.0.0.1", done));
const url = `http://127.0.0.1:${server.address().port}/`;

const failures = [];
const logs = [];
let browser;
try {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    // WebGL2 through SwiftShader (no GPU); no network but the page's.
    args: ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
      "--no-first-run", "--disable-quic"],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  // What the page logs; an error (a panic, a file that did not load) fails the test at once.
  const errors = [];
  page.on("console", (message) => {
    logs.push(message.text());
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => {
    // Bevy hands its loop to the browser by throwing this after its first frame.
    if (!error.message.includes("Using exceptions for control flow")) errors.push(error.message);
  });
  page.on("response", (response) => {
    if (response.status() >= 400) errors.push(`${response.status()} for ${response.url()}`);
  });
  await page.goto(url);

  // Waits for a log line matching `pattern` (after `from` lines) and returns its match.
  const waitFor = async (pattern, seconds, from = 0) => {
    for (const end = Date.now() + seconds * 1000; Date.now() < end;) {
      if (errors.length) throw new Error("the page reported an error: " + errors.join("; "));
      for (const line of logs.slice(from)) {
        const found = line.match(pattern);
        if (found) return found;
      }
      await page.waitForTimeout(100);
    }
    throw new Error(`no log line matching ${pattern} within ${seconds} s`);
  };
  const landing = /the character landed at \[(-?[\d.]+), (-?[\d.]+)\]/;

  // The level loads over HTTP, the character appears and lands.
  await waitFor(/the character appears at/, 300);
  const start = Number((await waitFor(landing, 60))[1]);
  // Walk right for two seconds, jumping half way; then the next landing.
  await page.locator("canvas").focus();
  const before = logs.length;
  await page.keyboard.down("KeyD");
  await page.waitForTimeout(1000);
  await page.keyboard.down("KeyW");
  await page.waitForTimeout(200);
  await page.keyboard.up("KeyW");
  await page.waitForTimeout(800);
  await page.keyboard.up("KeyD");
  const after = Number((await waitFor(landing, 30, before))[1]);
  if (!(after > start + 60)) {
    failures.push(`the character did not walk right: landed at x ${start}, then at x ${after}`);
  }
  await page.waitForTimeout(1000);
  const png = await page.locator("canvas").screenshot();
  await writeFile(shot, png);

  // The screenshot's pixels, counted in the page (the browser decodes the PNG).
  const counts = await page.evaluate(async (data) => {
    const load = async (src) => {
      const image = new Image();
      image.src = src;
      await image.decode();
      const canvas = document.createElement("canvas");
      canvas.width = image.width;
      canvas.height = image.height;
      const context = canvas.getContext("2d");
      context.drawImage(image, 0, 0);
      return { w: image.width, h: image.height, rgba: context.getImageData(0, 0, image.width, image.height).data };
    };
    const shot = await load("data:image/png;base64," + data);
    // The solid tile's picture: every colour of it, from the tileset the game draws.
    const sheet = await load("assets/sprites/tiles.png");
    const solid = [];
    for (let y = 0; y < 16; y++) for (let x = 0; x < 16; x++) {
      const i = 4 * (y * sheet.w + x);
      solid.push([sheet.rgba[i], sheet.rgba[i + 1], sheet.rgba[i + 2]]);
    }
    const near = (p, q) => p.every((v, i) => Math.abs(v - q[i]) <= 24);
    const at = (x, y) => { const i = 4 * (y * shot.w + x); return [shot.rgba[i], shot.rgba[i + 1], shot.rgba[i + 2]]; };
    const background = [18, 23, 46]; // examples/common's BACKGROUND (0.07, 0.09, 0.18)
    let sampled = 0, tiles = 0, back = 0, character = 0;
    for (let y = 0; y < shot.h; y += 2) for (let x = 0; x < shot.w; x += 2) {
      const p = at(x, y);
      sampled++;
      tiles += solid.some((c) => near(p, c));
      back += near(p, background);
      character += p[2] > 120 && p[2] > p[0] + 60 && p[2] > p[1] + 30;
    }
    // The panel at the top left: neutral greys, unlike the blue background.
    let panel = 0, panelSampled = 0;
    for (let y = 40; y < Math.min(300, shot.h); y += 3) for (let x = 16; x < Math.min(250, shot.w); x += 3) {
      const p = at(x, y);
      panelSampled++;
      panel += Math.abs(p[0] - p[1]) < 10 && Math.abs(p[1] - p[2]) < 10 && p[0] < 110;
    }
    return { w: shot.w, h: shot.h, tiles: tiles / sampled, back: back / sampled, character, panel: panel / panelSampled };
  }, png.toString("base64"));
  const percent = (v) => (100 * v).toFixed(1) + "%";
  if (counts.w < 640 || counts.h < 360) failures.push(`screenshot is ${counts.w} x ${counts.h}`);
  if (counts.tiles < 0.03) failures.push(`tiles not drawn: ${percent(counts.tiles)} solid-tile pixels`);
  if (counts.back < 0.2) failures.push(`background not drawn: ${percent(counts.back)}`);
  if (counts.character < 20) failures.push(`character not drawn: ${counts.character} pixels`);
  if (counts.panel < 0.5) failures.push(`debug panel not drawn: ${percent(counts.panel)} grey in its area`);
  const summary = `${counts.w}x${counts.h}, tiles ${percent(counts.tiles)}, background ` +
    `${percent(counts.back)}, character ${counts.character} px, panel ${percent(counts.panel)} grey, ` +
    `landed at x ${start} then ${after}`;
  console.log(failures.length ? `WEB FAIL: ${failures.join("; ")} (${summary})` : `WEB OK: ${summary}`);
} catch (error) {
  failures.push(String(error));
  console.log(`WEB FAIL: ${error}`);
  console.log("the page's last log lines:\n" + logs.slice(-30).join("\n"));
} finally {
  await browser?.close();
  server.close();
}
process.exit(failures.length ? 1 : 0);
