/**
 * The text of a data file: JSON in valid UTF-8, with no lone surrogate, escaped (`"\ud800"`) or
 * not, no object that names a member twice, nesting at most MAX_NESTING levels and strings of at
 * most MAX_STRING_LENGTH characters. Every path in (the command line, `npm start`, the ingest of
 * the deployed stack) hands the file's bytes to the dataset schemas, which decode them here, so a
 * file is read the same way everywhere and bad text is refused instead of being served changed
 * (README, "Data import").
 */
import { isUtf8 } from 'node:buffer';

/** Where a problem is: a place in the JSON value, or a byte offset when it lies outside any string. */
export type TextProblem = { path: PropertyKey[]; key?: boolean; message: string } | { byte: number; message: string };

export interface DecodedJson {
  /** The JSON value, invalid sequences read as U+FFFD; `undefined` when the text is not JSON. */
  value: unknown;
  problems: TextProblem[];
}

const INVALID_UTF8 = 'invalid UTF-8';
const LONE_SURROGATE = 'lone surrogate';

/** Levels of nesting a file may have: its value is level 1, each array or object inside adds one. */
export const MAX_NESTING = 32;
/** The longest string a file may hold, in characters (code points); decimals have their own, shorter bound. */
const MAX_STRING_LENGTH = 2048;

const TOO_DEEP = `nested deeper than ${MAX_NESTING} levels`;
const TOO_LONG = `longer than ${MAX_STRING_LENGTH.toLocaleString('en-US')} characters`;

/**
 * The runs of bytes that are not UTF-8, as [start, end) offsets: each byte that cannot start or
 * continue a well-formed sequence (RFC 3629, which excludes encoded surrogates and overlongs)
 * ends a run, and adjacent runs are merged.
 * @internal (exported for its tests)
 */
export function invalidUtf8Runs(bytes: Uint8Array): [number, number][] {
  const runs: [number, number][] = [];
  const mark = (start: number, end: number) => {
    const last = runs[runs.length - 1];
    if (last && last[1] === start) last[1] = end;
    else runs.push([start, end]);
  };
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i];
    if (lead < 0x80) {
      i++;
      continue;
    }
    let need = 0;
    let low = 0x80;
    let high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) need = 1;
    else if (lead >= 0xe0 && lead <= 0xef) {
      need = 2;
      if (lead === 0xe0) low = 0xa0; // overlong
      if (lead === 0xed) high = 0x9f; // U+D800..U+DFFF, surrogates
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      need = 3;
      if (lead === 0xf0) low = 0x90; // overlong
      if (lead === 0xf4) high = 0x8f; // beyond U+10FFFF
    }
    let j = i + 1;
    let got = 0;
    while (got < need && j < bytes.length && bytes[j] >= low && bytes[j] <= high) {
      j++;
      got++;
      low = 0x80;
      high = 0xbf;
    }
    if (need === 0 || got < need) mark(i, j);
    i = j;
  }
  return runs;
}

/** The text with each invalid run read as one U+FFFD, and the character offset of each run. */
function decodeReplacing(bytes: Uint8Array, runs: [number, number][]): { text: string; offsets: number[] } {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  let text = '';
  let from = 0;
  const offsets: number[] = [];
  for (const [start, end] of runs) {
    text += decoder.decode(bytes.subarray(from, start));
    offsets.push(text.length);
    text += '\uFFFD';
    from = end;
  }
  text += decoder.decode(bytes.subarray(from));
  return { text, offsets };
}

type Frame = { path: PropertyKey[]; array: boolean; index: number; key: string; expectKey: boolean };

/**
 * For each character offset (ascending) of a text that is valid JSON: the place of the string it
 * lies in (a field name is placed at its object), or `undefined` outside any string.
 */
function placesOfOffsets(text: string, offsets: number[]): ({ path: PropertyKey[]; key: boolean } | undefined)[] {
  const places: ({ path: PropertyKey[]; key: boolean } | undefined)[] = [];
  const stack: Frame[] = [];
  const childPath = (): PropertyKey[] => {
    const top = stack[stack.length - 1];
    return top ? [...top.path, top.array ? top.index : top.key] : [];
  };
  let next = 0;
  for (let i = 0; i < text.length && next < offsets.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const top = stack[stack.length - 1];
      const isKey = top !== undefined && !top.array && top.expectKey;
      const path = isKey ? top.path : childPath();
      while (next < offsets.length && offsets[next] < i) {
        places.push(undefined);
        next++;
      }
      while (next < offsets.length && offsets[next] <= j) {
        places.push({ path, key: isKey });
        next++;
      }
      if (isKey) {
        top.key = JSON.parse(text.slice(i, j + 1)) as string;
        top.expectKey = false;
      }
      i = j;
    } else if (c === '{' || c === '[') {
      stack.push({ path: childPath(), array: c === '[', index: 0, key: '', expectKey: c === '{' });
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',') {
      const top = stack[stack.length - 1];
      if (top.array) top.index++;
      else top.expectKey = true;
    }
  }
  while (places.length < offsets.length) places.push(undefined);
  return places;
}

const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;

/** Characters (code points) beyond MAX_STRING_LENGTH: a pair of surrogates is one character. */
const tooLong = (text: string) =>
  text.length > MAX_STRING_LENGTH &&
  (text.length > 2 * MAX_STRING_LENGTH || text.length - (text.match(PAIR)?.length ?? 0) > MAX_STRING_LENGTH);

/**
 * The problems of a JSON value, by place: strings (and, with `surrogates`, field names) holding a
 * lone surrogate, strings longer than MAX_STRING_LENGTH characters, and an array or object deeper
 * than MAX_NESTING levels (named once, its inside not visited, so no value overflows the stack).
 */
export function valueProblems(value: unknown, { surrogates }: { surrogates: boolean }): TextProblem[] {
  const problems: TextProblem[] = [];
  // One path, extended and shortened in place: a large dataset has millions of values.
  const path: PropertyKey[] = [];
  const visit = (node: unknown, level: number): void => {
    if (typeof node === 'string') {
      if (surrogates && LONE.test(node)) problems.push({ path: [...path], message: LONE_SURROGATE });
      if (tooLong(node)) problems.push({ path: [...path], message: TOO_LONG });
      return;
    }
    if (node === null || typeof node !== 'object') return;
    if (level > MAX_NESTING) {
      problems.push({ path: [...path], message: TOO_DEEP });
      return;
    }
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        path.push(i);
        visit(node[i], level + 1);
        path.pop();
      }
    } else {
      for (const key of Object.keys(node)) {
        if (surrogates && LONE.test(key)) problems.push({ path: [...path], key: true, message: LONE_SURROGATE });
        path.push(key);
        visit((node as Record<string, unknown>)[key], level + 1);
        path.pop();
      }
    }
  };
  visit(value, 1);
  return problems;
}

/** Strings and structural characters of a JSON text; numbers, literals and blanks lie between them. */
const TOKEN = /"[^"\\]*(?:\\.[^"\\]*)*"|[{}[\],]/g;

interface MemberFrame {
  /** The names read so far (an object within MAX_NESTING levels), or null (an array, or deeper). */
  names: Set<string> | null;
  object: boolean;
  expectName: boolean;
  /** The member or element being read: its name or its index. */
  name: string;
  index: number;
}

/**
 * Every member of a JSON text (valid JSON) that its object names a second time, at the member's
 * place (`exchanges[2].name`). `JSON.parse` keeps the last one silently; the file is refused
 * instead. Names are compared decoded (`"a"` and `"\u0061"` are one name). One pass, no recursion.
 */
function duplicateMembers(text: string): TextProblem[] {
  const problems: TextProblem[] = [];
  const stack: MemberFrame[] = [];
  let top: MemberFrame | undefined;
  const placeOf = (name: string): PropertyKey[] => [
    ...stack.slice(0, -1).map((f) => (f.object ? f.name : f.index)),
    name,
  ];
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(text); match !== null; match = TOKEN.exec(text)) {
    const token = match[0];
    switch (token) {
      case '{':
      case '[': {
        const object = token === '{';
        top = {
          names: object && stack.length < MAX_NESTING ? new Set() : null,
          object,
          expectName: object,
          name: '',
          index: 0,
        };
        stack.push(top);
        break;
      }
      case '}':
      case ']':
        stack.pop();
        top = stack[stack.length - 1];
        break;
      case ',':
        if (top!.object) top!.expectName = true;
        else top!.index++;
        break;
      default:
        if (top?.object && top.expectName) {
          const name = token.includes('\\') ? (JSON.parse(token) as string) : token.slice(1, -1);
          if (top.names?.has(name))
            problems.push({ path: placeOf(name), message: 'duplicate field (named twice in its object)' });
          top.names?.add(name);
          top.name = name;
          top.expectName = false;
        }
    }
  }
  return problems;
}

/** Read a data file's bytes as JSON; invalid UTF-8 is a problem at its place, never a silent U+FFFD. */
export function decodeJson(bytes: Uint8Array): DecodedJson {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let runs: [number, number][] = [];
  let text: string;
  let offsets: number[] = [];
  // The native check and decoder, quicker than TextDecoder on a large file.
  if (isUtf8(buffer)) text = buffer.toString('utf8');
  else {
    runs = invalidUtf8Runs(bytes);
    ({ text, offsets } = decodeReplacing(bytes, runs));
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const problems: TextProblem[] = runs.map(([start]) => ({ byte: start, message: INVALID_UTF8 }));
    return {
      value: undefined,
      problems: [...problems, { path: [], message: `not valid JSON: ${(error as Error).message}` }],
    };
  }
  const problems: TextProblem[] = [];
  placesOfOffsets(text, offsets).forEach((place, i) =>
    problems.push(place ? { ...place, message: INVALID_UTF8 } : { byte: runs[i][0], message: INVALID_UTF8 }),
  );
  problems.push(...duplicateMembers(text));
  // UTF-8 cannot encode a surrogate, so only an escape can make one: no such escape, no search for one.
  problems.push(...valueProblems(value, { surrogates: /\\u[dD][89a-fA-F]/.test(text) }));
  return { value, problems };
}

/** True for a Uint8Array or Buffer, also one made in another realm (jest runs tests in their own). */
export const isBytes = (input: unknown): input is Uint8Array =>
  ArrayBuffer.isView(input) && Object.prototype.toString.call(input) === '[object Uint8Array]';
