import fc from 'fast-check';

/**
 * Property runs are reproducible: `npm test` (and so CI) uses one fixed seed, so a red run
 * means the code changed, never the dice. Exploration is a separate command, `npm run fuzz`,
 * which sets LOOPCHART_FC_SEED=random; a counterexample it finds is pinned as an ordinary
 * example test next to the code it broke (docs/proof.md, "Property seeds").
 */
const requested = process.env.LOOPCHART_FC_SEED ?? '20261201';
if (requested !== 'random') {
  const seed = Number(requested);
  if (!Number.isSafeInteger(seed))
    throw new Error(`LOOPCHART_FC_SEED must be an integer or "random", got ${requested}`);
  fc.configureGlobal({ seed });
}
