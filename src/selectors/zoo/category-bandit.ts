import type { ObservedBatch } from '../base.ts';
import type { SelectorTaskView } from '../types.ts';
import {
  drawByCategory,
  meanAbsAdvantage,
  membersByCategory,
  taskCategories,
  ZooSelector,
} from './zoo-base.ts';

/** The settings every category bandit has. */
export interface CategoryBanditParams {
  /** 'domain' or a feature column whose values are the categories. */
  category: string;
  /** GRPO-normalised advantages (else the plain group-baseline advantage). */
  normalisedAdvantage: boolean;
}

/**
 * What the category bandits (SEC, DUMP) share: the tasks split into categories (the domain or the
 * values of a feature column); each batch slot draws a category from the method's distribution,
 * then a task of it uniformly; each group fed back is credited to its category with its mean
 * |advantage| (the learning gain). A method says only how it scores categories from those credits.
 */
export abstract class CategoryBandit extends ZooSelector {
  private readonly bandit: CategoryBanditParams;
  /** Each task's category, the categories' names (first-seen order), and the tasks of each. */
  private codes: Int32Array = new Int32Array(0);
  protected names: string[] = [];
  private members: Int32Array[] = [];

  constructor(seed: number, params: CategoryBanditParams) {
    super(seed);
    this.bandit = params;
  }

  /** The categories are known (`names`): size the method's per-category state. */
  protected abstract onCategories(count: number): void;

  /** Each category's probability of being drawn for a batch slot. */
  protected abstract categoryProbabilities(): Float64Array;

  /** The learning gains of one feedback call, one per group in batch order. */
  protected abstract credit(gains: ReadonlyArray<{ category: number; gain: number }>): void;

  protected override onInit(view: SelectorTaskView): void {
    const { codes, names } = taskCategories(view, this.bandit.category, this.type);
    this.codes = codes;
    this.names = names;
    this.members = membersByCategory(codes, names.length);
    this.onCategories(names.length);
  }

  protected pick(n: number): Int32Array {
    return drawByCategory(this.rng, this.members, this.categoryProbabilities(), n);
  }

  protected override observe(batch: ObservedBatch): void {
    const gains: Array<{ category: number; gain: number }> = [];
    for (let i = 0; i < batch.size; i++) {
      const k = batch.idx[i]!;
      const gain = meanAbsAdvantage(this.groupRewards.get(k) ?? [], this.bandit.normalisedAdvantage);
      gains.push({ category: this.codes[k]!, gain });
    }
    this.credit(gains);
  }
}
