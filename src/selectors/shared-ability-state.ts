// The shared-ability model's checkpoint: the shared posterior, the residuals and the practice
// counts; the observed slots are rebuilt from them on load.
import { DataError } from '../core/errors.ts';
import type { JsonValue } from '../core/task.ts';
import type { AbilityModel } from './shared-ability-model.ts';
import { decodeArray, encodeArray } from './state-codec.ts';

export function saveAbility(model: AbilityModel): { [key: string]: JsonValue } {
  return {
    mu: encodeArray(model.mu),
    cov: encodeArray(model.cov),
    domainNames: [...model.domainNames],
    rMean: encodeArray(model.rMean),
    rVar: encodeArray(model.rVar),
    seen: encodeArray(model.seen),
    practiced: encodeArray(model.practiced),
    residualVar: model.residualVar,
    steps: model.steps,
  };
}

/** Restore `model` (already set up on the same n tasks) from a checkpoint's data. */
export function loadAbility(model: AbilityModel, data: { [key: string]: JsonValue }, n: number): void {
  const names = data['domainNames'];
  if (!Array.isArray(names) || !names.every((v) => typeof v === 'string'))
    throw new DataError({ message: 'shared_ability.load: state.data.domainNames must be a list of names' });
  if (names.length !== model.domainNames.length || names.some((v, i) => v !== model.domainNames[i]))
    throw new DataError({ message: 'shared_ability.load: the state was taken with different domains' });
  const P = model.dim;
  model.mu = decodeArray(data['mu'], 'float64', 'shared_ability mu', P);
  model.cov = decodeArray(data['cov'], 'float64', 'shared_ability cov', P * P);
  model.rMean = decodeArray(data['rMean'], 'float64', 'shared_ability rMean', n);
  model.rVar = decodeArray(data['rVar'], 'float64', 'shared_ability rVar', n);
  model.seen = decodeArray(data['seen'], 'int32', 'shared_ability seen', n);
  model.practiced = decodeArray(data['practiced'], 'float64', 'shared_ability practiced', n);
  model.slots.reset(n);
  for (let k = 0; k < n; k++)
    if (model.seen[k]! >= 0) {
      model.markObserved(k);
      model.syncSlot(k);
    }
  const { residualVar, steps } = data;
  if (typeof residualVar !== 'number' || typeof steps !== 'number')
    throw new DataError({ message: 'shared_ability.load: state.data needs residualVar and steps' });
  model.residualVar = residualVar;
  model.steps = steps;
}
