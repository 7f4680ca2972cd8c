import type { Plan, PlanKind } from '../plan.ts';
import { aggregateRecipe } from './aggregate.ts';
import { changeRecipe } from './change.ts';
import { compareGroupsRecipe } from './compare-groups.ts';
import { compareValuesRecipe } from './compare-values.ts';
import { correlationRecipe } from './correlation.ts';
import { countRecipe } from './count.ts';
import { distributionRecipe } from './distribution.ts';
import { lookupRecipe } from './lookup.ts';
import { profileRecipe } from './profile.ts';
import { duplicatesRecipe, missingRecipe, outliersRecipe } from './quality.ts';
import { rankRecipe } from './rank.ts';
import type { Recipe } from './recipe.ts';
import { spreadRecipe } from './spread.ts';
import { trendRecipe } from './trend.ts';

type Recipes = { [K in PlanKind]: Recipe<Extract<Plan, { kind: K }>> };

const RECIPES: Recipes = {
  aggregate: aggregateRecipe,
  count: countRecipe,
  lookup: lookupRecipe,
  rank: rankRecipe,
  spread: spreadRecipe,
  'compare-values': compareValuesRecipe,
  'compare-groups': compareGroupsRecipe,
  trend: trendRecipe,
  change: changeRecipe,
  correlation: correlationRecipe,
  distribution: distributionRecipe,
  missing: missingRecipe,
  duplicates: duplicatesRecipe,
  outliers: outliersRecipe,
  profile: profileRecipe,
};

/** The recipe for a plan: the cells it runs and how their output becomes an answer. */
export function recipeFor(plan: Plan): Recipe<Plan> {
  return RECIPES[plan.kind] as Recipe<Plan>;
}
