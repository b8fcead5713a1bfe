/**
 * @module Response schema of the rule test (POST /api/v1/rules/test, /rules/test/{id}; spec 2.9):
 * documents it in OpenAPI, tied at compile time to its one declaration in
 * src/domain/rules/rule-test.ts.
 */
import { Type } from '@sinclair/typebox';
import type { RuleTestResult, SimulationResult } from '../domain/rules/rule-test.ts';
import { ExplanationSchema, literals } from './alert-responses.ts';
import { describes } from './describes.ts';

const SimulationSchema = describes<SimulationResult>()(
  Type.Object({
    wouldTrigger: Type.Boolean(),
    matchedConditions: Type.Array(Type.String()),
    currentValues: Type.Record(Type.String(), Type.Number()),
    explanation: Type.Union([ExplanationSchema, Type.Null()]),
  }),
);

export const RuleTestResultSchema = describes<RuleTestResult>()(
  Type.Object(
    {
      success: Type.Boolean(),
      message: Type.String(),
      compilationStatus: literals(['SUCCESS', 'WARNING', 'ERROR'] as const),
      generatedDrl: Type.Union([Type.String(), Type.Null()]),
      validationErrors: Type.Array(Type.String()),
      simulationResult: Type.Union([SimulationSchema, Type.Null()]),
      recommendations: Type.Array(Type.String()),
    },
    { description: 'Rule test result (spec 2.9); a bad config is success: false, not a 4xx' },
  ),
);
