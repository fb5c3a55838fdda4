// The search rules of the API contract: the key of a text, and what a `search` value asks for.
import { describe, expect, test } from 'vitest';
import { searchKey } from '../../src/contract/search-key.ts';
import { classifyText, parseSearch } from '../../src/contract/search-query.ts';

describe('the search key of a text', () => {
  test.each(['Oak Tree', 'oak tree', 'OAKTREE', 'oak-tree', 'oak_tree'])("%s has Oak Tree's key", (text) => {
    expect(searchKey(text)).toBe('oaktree');
  });

  test('breadknife has the key of the alias Bread Knife', () => {
    expect(searchKey('breadknife')).toBe(searchKey('Bread Knife'));
  });

  test('accents are removed: composed and decomposed letters have the same key', () => {
    expect(searchKey('Crème Brûlée')).toBe('cremebrulee');
    expect(searchKey('Cre\u0300me Bru\u0302le\u0301e')).toBe('cremebrulee');
  });

  test('NFKD folds compatibility characters to their plain letters and digits', () => {
    expect(searchKey('ﬁr')).toBe('fir');
    expect(searchKey('ＯＡＫ')).toBe('oak');
    expect(searchKey('Level²')).toBe('level2');
  });

  test('combining marks are removed, also on their own', () => {
    expect(searchKey('o\u0308ak \u20DD')).toBe('oak');
  });

  test('every character that is not a-z or 0-9 is dropped', () => {
    expect(searchKey('Oak Tree #1, (big)!')).toBe('oaktree1big');
    expect(searchKey('Дуб oak 🌳')).toBe('oak');
  });

  test.each(['', '   ', '!!!', '-_-', '日本', '🌳'])('%j has the empty key', (text) => {
    expect(searchKey(text)).toBe('');
  });
});

describe('what a search value asks for', () => {
  test.each([null, '', '   ', 'null', 'NULL', 'Null', 'undefined', 'UNDEFINED', ' unDefined '])(
    'no search, an empty or white space value, null or undefined in any case: the whole list (%j)',
    (raw) => {
      expect(parseSearch(raw)).toEqual({ type: 'all' });
    },
  );

  test.each([
    ['5', 5],
    ['05', 5],
    ['007', 7],
    [' 12 ', 12],
    ['0', 0],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
  ])('ASCII digits, leading zeros too, are a level search: %j is level %i', (raw, level) => {
    expect(parseSearch(raw)).toEqual({ type: 'level', level });
  });

  test.each(['9007199254740992', '9007199254740993', '99999999999999999999'])(
    'digits past 2^53 can match nothing: %s',
    (raw) => {
      expect(parseSearch(raw)).toEqual({ type: 'none' });
    },
  );

  test.each(['Oak Tree', 'oak_tree', ' OAKTREE '])('any other value is a name search by its key: %j', (raw) => {
    expect(parseSearch(raw)).toEqual({ type: 'name', key: 'oaktree' });
  });

  test('digits mixed with other characters are a name search', () => {
    expect(parseSearch('5a')).toEqual({ type: 'name', key: '5a' });
    expect(parseSearch('-5')).toEqual({ type: 'name', key: '5' });
  });

  test.each(['!!!', '-', '日本'])('a value with an empty key can match nothing: %j', (raw) => {
    expect(parseSearch(raw)).toEqual({ type: 'none' });
  });

  test('a value longer than 100 characters can match nothing, digits too', () => {
    expect(parseSearch('a'.repeat(101))).toEqual({ type: 'none' });
    expect(parseSearch('1'.repeat(101))).toEqual({ type: 'none' });
  });

  test('a value of exactly 100 characters is searched', () => {
    expect(parseSearch('a'.repeat(100))).toEqual({ type: 'name', key: 'a'.repeat(100) });
  });

  test('the length is counted after the surrounding white space is removed', () => {
    expect(parseSearch(`   ${'a'.repeat(100)}   `)).toEqual({ type: 'name', key: 'a'.repeat(100) });
  });

  test('the length is counted in characters, not UTF-16 units', () => {
    expect(parseSearch(`${'a'.repeat(99)}🌳`)).toEqual({ type: 'name', key: 'a'.repeat(99) });
    expect(parseSearch(`${'a'.repeat(100)}🌳`)).toEqual({ type: 'none' });
  });
});

describe("a text as it is (an MCP tool's argument): none of the API's query words", () => {
  test.each([
    ['null', { type: 'key', key: 'null' }],
    [' Undefined ', { type: 'key', key: 'undefined' }],
    ['', { type: 'none' }],
    ['   ', { type: 'none' }],
    [' 05 ', { type: 'digits', digits: '05' }],
    ['a'.repeat(101), { type: 'none' }],
  ])('%j', (text, classified) => {
    expect(classifyText(text)).toEqual(classified);
  });
});
