// The simulator's acceptance numbers of issue #3 (the default and useless_refs scenarios), moved out
// of runner.ts so that file keeps to running scenarios.

/** What the checks read of a scenario's result (runner.ts's ScenarioResult has these fields). */
interface ScenarioNumbers {
  scenario: string;
  selectors: ReadonlyArray<{ selector: string; etr: { mean: number }; relSteps: { mean: number } }>;
  successorOverBots: { mean: number } | null;
}

export interface AcceptanceCheck {
  check: string;
  value: number;
  limit: string;
  pass: boolean;
}

/** The acceptance numbers of issue #3, checked on whichever scenarios ran. */
export function acceptanceChecks(scenarios: readonly ScenarioNumbers[]): AcceptanceCheck[] {
  const out: AcceptanceCheck[] = [];
  const get = (sc: ScenarioNumbers | undefined, name: string) =>
    sc?.selectors.find((s) => s.selector === name);
  const def = scenarios.find((s) => s.scenario === 'default');
  const random = get(def, 'random');
  const bots = get(def, 'bots');
  if (random)
    out.push({
      check: 'default: random effective task ratio',
      value: random.etr.mean,
      limit: '< 0.45',
      pass: random.etr.mean < 0.45,
    });
  if (bots) {
    out.push({
      check: 'default: bots effective task ratio',
      value: bots.etr.mean,
      limit: '> 0.8',
      pass: bots.etr.mean > 0.8,
    });
    out.push({
      check: "default: bots steps to random's final accuracy ÷ random's",
      value: bots.relSteps.mean,
      limit: '≤ 0.5',
      pass: bots.relSteps.mean <= 0.5,
    });
  }
  if (def?.successorOverBots)
    out.push({
      check: "default: shared_ability steps ÷ bots's steps",
      value: def.successorOverBots.mean,
      limit: '≤ 0.9',
      pass: def.successorOverBots.mean <= 0.9,
    });
  const useless = scenarios.find((s) => s.scenario === 'useless_refs');
  const sa = get(useless, 'shared_ability');
  const explicitOnly = get(useless, 'bots_explicit');
  if (sa && explicitOnly)
    out.push({
      check: 'useless_refs: shared_ability steps ÷ bots_explicit steps',
      value: sa.relSteps.mean / explicitOnly.relSteps.mean,
      limit: '≤ 1',
      pass: sa.relSteps.mean <= explicitOnly.relSteps.mean,
    });
  return out;
}
