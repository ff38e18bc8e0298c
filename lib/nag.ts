/**
 * cdk-nag v3 acknowledgments. Each one is scoped to the construct it is about and, for rules
 * that report findings (IAM4, IAM5), to the findings it accepts, so that a new wildcard or
 * managed policy elsewhere is still reported.
 */
import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * Acknowledge `rule` on `scope` and its children, with a one-line reason. With `appliesTo`, only
 * those findings (`Resource::…`, `Policy::…`, `Action::…`) are acknowledged (`Rule[finding]`).
 */
export function acknowledge(scope: IConstruct, rule: string, reason: string, appliesTo?: string[]): void {
  const ids = appliesTo ? appliesTo.map((finding) => `${rule}[${finding}]`) : [rule];
  for (const id of ids) Validations.of(scope).acknowledge({ id, reason });
}
