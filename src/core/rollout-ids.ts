// Ids of rollout groups and their experiences: `s<step>:<task id>` and `<group id>#<run index>`.
// Shared by the explorer, the selection stages, serve and scale-out, which must agree on them.

export function groupIdOf(exploreStep: number, taskId: string): string {
  return `s${exploreStep}:${taskId}`;
}

export function experienceIdOf(groupId: string, runIndex: number): string {
  return `${groupId}#${runIndex}`;
}
