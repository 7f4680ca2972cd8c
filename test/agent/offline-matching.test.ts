import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fuzzyEqual, similarity } from '../../src/agent/offline/text/similarity.ts';
import { nameForms, tokenize } from '../../src/agent/offline/text/tokens.ts';
import { singular, splitWords } from '../../src/agent/offline/text/words.ts';
import { findColumnMentions, findValueMentions } from '../../src/agent/offline/understand/mentions.ts';
import { tableOf } from './offline-fixtures.ts';

const named = (question: string, columns: Parameters<typeof tableOf>[0]) =>
  findColumnMentions(question, tableOf(columns).columns).map((m) => m.column.name);

describe('offline analyst: words', () => {
  test('splits identifiers at spaces, underscores, punctuation and camelCase', () => {
    assert.deepEqual(splitWords('avgDailyFlights'), ['avg', 'daily', 'flights']);
    assert.deepEqual(splitWords('units_sold'), ['units', 'sold']);
    assert.deepEqual(splitWords('GDP (nominal) 2011'), ['gdp', 'nominal', '2011']);
    assert.deepEqual(nameForms('salesAmount'), [['salesamount'], ['sale', 'amount']]);
  });

  test('reduces plurals to the singular, leaving words that only end in s', () => {
    assert.equal(singular('cities'), 'city');
    assert.equal(singular('matches'), 'match');
    assert.equal(singular('medals'), 'medal');
    assert.equal(singular('status'), 'status');
    assert.equal(singular('class'), 'class');
    assert.equal(singular('people'), 'person');
  });

  test('folds case and accents, and keeps each Chinese character as a token', () => {
    assert.deepEqual(
      tokenize('Córdoba SALES').map((t) => t.word),
      ['cordoba', 'sale'],
    );
    assert.deepEqual(
      tokenize('各地区销售额').map((t) => t.word),
      ['各', '地', '区', '销', '售', '额'],
    );
  });

  test('tells a misspelling from a different word', () => {
    assert.ok(fuzzyEqual('population', 'popluation'));
    assert.ok(fuzzyEqual('revenue', 'revenu'));
    assert.ok(!fuzzyEqual('gold', 'bold'));
    assert.ok(!fuzzyEqual('rate', 'date'));
    assert.ok(similarity('abc', 'abc') === 1);
  });
});

describe('offline analyst: which columns a question names', () => {
  test('exact and case-insensitive', () => {
    assert.deepEqual(named('What is the total of Gold?', { gold: [1], silver: [2] }), ['gold']);
    assert.deepEqual(named('average AMOUNT', { amount: [1], units: [2] }), ['amount']);
  });

  test('plural and singular', () => {
    assert.deepEqual(named('How many medals in total?', { medal: [1], year: [2020] }), ['medal']);
    assert.deepEqual(named('the city with the most people', { cities: ['a'], people: [1] }).sort(), [
      'cities',
      'people',
    ]);
  });

  test('words split by spaces, underscores and camelCase', () => {
    assert.deepEqual(named('What were the units sold in 2020?', { units_sold: [1], price: [2] }), [
      'units_sold',
    ]);
    assert.deepEqual(named('the average daily flights', { avgDailyFlights: [1], seats: [2] }), [
      'avgDailyFlights',
    ]);
  });

  test('part of a longer name, and the fuller match first', () => {
    assert.deepEqual(
      named('the GDP (nominal) of Peru', { 'gdp (nominal) (millions of usd) 2011': [1], area: [2] }),
      ['gdp (nominal) (millions of usd) 2011'],
    );
    const both = named('the population density', { population: [1], 'population density': [2] });
    assert.equal(both[0], 'population density');
  });

  test('misspelt names', () => {
    assert.deepEqual(named('average popluation by year', { population: [1], area: [2] }), ['population']);
  });

  test('short forms in column names ("pop", "no.", "%")', () => {
    assert.deepEqual(named('the population in 2010', { 'pop (2010)': [1], area: [2] }), ['pop (2010)']);
    assert.deepEqual(named('the percentage of votes', { 'votes %': [1], seats: [2] }), ['votes %']);
  });

  test('Chinese column names', () => {
    assert.deepEqual(
      named('各地区的平均销售额是多少？', { 地区: ['北'], 销售额: [1], 年份: [2020] }).sort(),
      ['地区', '销售额'].sort(),
    );
  });

  test('a unit alone does not name a column ("meters" is not "col (m)")', () => {
    assert.deepEqual(named('peaks above 3000 meters', { 'col (m)': [1], peak: ['a'] }), ['peak']);
  });
});

describe('offline analyst: which values a question names', () => {
  const table = tableOf({
    club: ['Wattstown RFC', 'Maesteg RFC', 'Llanhilleth RFC'],
    location: ['London, England', 'Cardiff, Wales', 'London, England'],
    points: [69, 22, 37],
  });
  const values = (question: string) =>
    findValueMentions(question, table.columns).map((v) => [v.column.name, v.value, v.mode]);

  test('whole values, whatever their case', () => {
    assert.deepEqual(values('How many points did wattstown rfc score?')[0], [
      'club',
      'Wattstown RFC',
      'equals',
    ]);
  });

  test('a distinctive part of a value, as "contains"', () => {
    assert.deepEqual(values('Which clubs are in Cardiff?')[0], ['location', 'Cardiff, Wales', 'contains']);
  });

  test('common words are not values, a numeric column has none', () => {
    assert.deepEqual(values('What is the total of points?'), []);
  });

  test('"won a gold medal" is the place "1st" in a column of places', () => {
    const places = tableOf({
      year: [2007, 2008, 2009],
      position: ['1st', '2nd', '5th'],
      event: ['100 m', '200 m', '100 m'],
    });
    const found = findValueMentions(
      'In which year did she win a gold medal in the 100 m?',
      places.columns,
    ).map((v) => `${v.column.name}=${v.value}`);
    assert.ok(found.includes('position=1st'), String(found));
    assert.ok(found.includes('event=100 m'), String(found));
  });
});
