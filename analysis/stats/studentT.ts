/**
 * Student's t distribution, pure and free of Node imports (the site's
 * comparison page bundles it): the two-sided p-value of a t statistic and
 * the critical value for a confidence level, from the regularized
 * incomplete beta function (continued fraction, Lentz's method).
 */

/** ln Γ(x) for x > 0 (Lanczos, g = 7): about 15 significant digits. */
export function logGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
    -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let a = c[0];
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** The continued fraction of the incomplete beta function (converges for x < (a + 1) / (a + b + 2)). */
function betaFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < 1e-15) break;
  }
  return h;
}

/** The regularized incomplete beta function I_x(a, b). */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x));
  return x < (a + 1) / (a + b + 2) ? (front * betaFraction(a, b, x)) / a : 1 - (front * betaFraction(b, a, 1 - x)) / b;
}

/** P(|T| >= |t|) for T with `df` degrees of freedom. */
export function tTwoSidedP(t: number, df: number): number {
  if (!(df > 0)) throw new RangeError(`degrees of freedom must be above 0, got ${df}`);
  if (!Number.isFinite(t)) return Number.isNaN(t) ? Number.NaN : 0;
  return incompleteBeta(df / (df + t * t), df / 2, 0.5);
}

/** The t with P(|T| >= t) = 1 - confidence, by bisection on tTwoSidedP (which falls as t grows). */
export function tCritical(df: number, confidence = 0.95): number {
  const alpha = 1 - confidence;
  let hi = 1;
  while (tTwoSidedP(hi, df) > alpha) hi *= 2;
  return bisect(0, hi, (t) => tTwoSidedP(t, df) > alpha);
}

/** The complementary error function (Chebyshev fitting, relative error under 1.2e-7 everywhere). */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

/** Φ(x), the standard normal distribution function. */
export const normalCdf = (x: number): number => 0.5 * erfc(-x / Math.SQRT2);

/** The x in [lo, hi] where `below(x)` turns false, by `steps` halvings (below must be true at lo and false at hi). */
export function bisect(lo: number, hi: number, below: (x: number) => boolean, steps = 60): number {
  for (let i = 0; i < steps; i++) {
    const mid = (lo + hi) / 2;
    if (below(mid)) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * P(|T'| >= crit) for T' = (Z + delta) / sqrt(V / df), V chi-square with df
 * degrees of freedom: the power of a two-sided t test whose true shift is
 * delta standard errors (the noncentral t). Integrated over u = sqrt(V), whose
 * density stays finite at 0 for any df >= 1 (Simpson's rule, 400 panels).
 */
export function tPower(delta: number, df: number, crit: number): number {
  const panels = 400;
  const uMax = Math.sqrt(df + 12 * Math.sqrt(2 * df) + 30);
  const h = uMax / panels;
  const logNorm = (1 - df / 2) * Math.LN2 - logGamma(df / 2);
  let sum = 0;
  for (let i = 0; i <= panels; i++) {
    const u = i * h;
    const density = u === 0 ? (df === 1 ? Math.exp(logNorm) : 0) : Math.exp(logNorm + (df - 1) * Math.log(u) - (u * u) / 2);
    const c = crit * (u / Math.sqrt(df));
    const f = density * (normalCdf(delta - c) + normalCdf(-delta - c));
    sum += (i === 0 || i === panels ? 1 : i % 2 ? 4 : 2) * f;
  }
  return (sum * h) / 3;
}

/** The shift, in standard errors, that a two-sided t test at `crit` with `df` degrees of freedom finds with probability `power`. */
export function shiftForPower(df: number, crit: number, power: number): number {
  let hi = crit + 10;
  while (tPower(hi, df, crit) < power) hi *= 2;
  return bisect(0, hi, (d) => tPower(d, df, crit) < power);
}
