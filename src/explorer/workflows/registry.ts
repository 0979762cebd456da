import { z } from 'zod';
import { definePlugin, type PluginDefinition } from '../../core/plugin.ts';
import { Registry } from '../../core/registry.ts';
import type { Workflow } from '../workflow.ts';
import { agentWorkflow } from './agent.ts';
import { multiTurnWorkflow } from './multi-turn.ts';
import { singleTurnWorkflow } from './single-turn.ts';

export type WorkflowDefinition<P = unknown> = PluginDefinition<
  P,
  { baseDir: string; path: string },
  Workflow
>;

/** A definition for a workflow without params (what a user module may export as a bare Workflow). */
export function workflowDefinition(workflow: Workflow, description = `workflow '${workflow.name}'`) {
  return definePlugin({
    name: workflow.name,
    description,
    params: z.strictObject({}),
    create: () => workflow,
  }) as WorkflowDefinition;
}

/** Adapts a user module's export: a bare `Workflow` object (name + run) becomes a definition. */
export function adaptWorkflow(exported: unknown): WorkflowDefinition | null {
  const w = exported as Partial<Workflow> | null;
  if (w && typeof w === 'object' && typeof w.name === 'string' && typeof w.run === 'function')
    return workflowDefinition(w as Workflow, `user workflow '${w.name}'`);
  return null;
}

/** Workflows by config name (`explorer.workflow: single_turn`). */
export function workflowRegistry(): Registry<WorkflowDefinition> {
  const reg = new Registry<WorkflowDefinition>('workflow');
  reg.register(workflowDefinition(singleTurnWorkflow, 'one prompt, `repeat` sampled answers'));
  reg.register(
    workflowDefinition(
      multiTurnWorkflow,
      "the task's user turns answered in order; one experience per conversation",
    ),
  );
  reg.register(agentWorkflow as WorkflowDefinition);
  return reg;
}
