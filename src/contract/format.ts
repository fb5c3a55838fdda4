// How the wiki shows numbers: the short form players see in the game ("1m 1s", "$11.5K")
// and the exact form beside it ("61 s", "$11,500").

/** What a number measures; decides both of its forms. */
export type Unit = 'money' | 'seconds' | 'hours' | 'count' | 'percent' | 'decimal' | 'times';

const SUFFIXES = ['', 'K', 'M', 'B', 'T'] as const;

/** 11500 as "11.5K", 1064143 as "1.064M": at most three decimals, trailing zeros dropped. */
export function formatCompact(value: number): string {
  if (Math.abs(value) < 1000) return formatDecimal(value);
  let tier = Math.min(Math.floor(Math.log10(Math.abs(value)) / 3), SUFFIXES.length - 1);
  let scaled = Math.round((value / 1000 ** tier) * 1000) / 1000;
  // 999,999.6 rounds to 1000K: say 1M instead.
  if (Math.abs(scaled) >= 1000 && tier < SUFFIXES.length - 1) {
    tier += 1;
    scaled = Math.round((value / 1000 ** tier) * 1000) / 1000;
  }
  return `${trimZeros(scaled.toFixed(3))}${SUFFIXES[tier]}`;
}

/**
 * Money as players count it: whole dollars from $1,000 ("$2,471,839,756", never "…,755.7"),
 * cents below, always two of them ("$2.01", "$70.60"): the cost of one log of capacity is cents.
 */
function dollars(value: number, large: (whole: number) => string): string {
  const amount = Math.abs(value) >= 1000 ? Math.round(Math.abs(value)) : Math.round(Math.abs(value) * 100) / 100;
  const digits = amount >= 1000 ? large(amount) : Number.isInteger(amount) ? String(amount) : CENTS.format(amount);
  return `${value < 0 && amount !== 0 ? '-' : ''}$${digits}`;
}

/** In-game dollars as the game shows them: "$999", "$70.60", "$11.5K", "$1.064M". */
export function formatMoney(value: number): string {
  return dollars(value, formatCompact);
}

/** Seconds as the game shows them: 61 as "1m 1s", 3600 as "1h"; fractions are rounded. */
export function formatDuration(seconds: number): string {
  let rest = Math.round(seconds);
  if (rest <= 0) return '0s';
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3_600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) parts.push(`${count}${unit}`);
  }
  return parts.join(' ');
}

// One formatter for the build: toLocaleString with options makes a new one per call, which
// was a tenth of a 10,000-record build's CPU.
const EXACT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const CENTS = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Digits grouped by thousands, up to two decimals: 23619637994 as "23,619,637,994". */
export function formatExact(value: number): string {
  return EXACT.format(value);
}

/** A plain number with at most `digits` decimals: 0.4375 as "0.44". */
export function formatDecimal(value: number, digits = 2): string {
  return trimZeros(value.toFixed(digits));
}

/** The short form of a value, as the game would show it. */
export function shown(unit: Unit, value: number): string {
  switch (unit) {
    case 'money':
      return formatMoney(value);
    case 'seconds':
      return formatDuration(value);
    case 'hours':
      return formatDuration(value * 3600);
    case 'count':
      return formatCompact(value);
    case 'percent':
      return `${formatDecimal(value, 1)}%`;
    case 'decimal':
      return formatDecimal(value);
    case 'times':
      return `×${formatDecimal(value)}`;
  }
}

/** The exact form of a value: every digit, with its unit. */
export function exact(unit: Unit, value: number): string {
  switch (unit) {
    case 'money':
      return dollars(value, formatExact);
    case 'seconds':
      return `${formatExact(value)} s`;
    case 'hours':
      return `${formatExact(value)} h`;
    case 'count':
    case 'decimal':
      return formatExact(value);
    case 'percent':
      return `${formatExact(value)}%`;
    case 'times':
      return `×${formatExact(value)}`;
  }
}

/** A [min, max] range in either form: "$100–$200". */
export function formatRange(
  format: (unit: Unit, value: number) => string,
  unit: Unit,
  [low, high]: readonly [number, number],
): string {
  return `${format(unit, low)}–${format(unit, high)}`;
}

function trimZeros(fixed: string): string {
  return fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed;
}
