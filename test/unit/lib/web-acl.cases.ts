/**
 * The firewall's refusal rule as synthesized, evaluated on the labels the managed rule groups give
 * a request (lib/constructs/web-acl.ts): it never refuses what the API accepts, and a label it lets
 * pass never hides one that refuses.
 */
import { LIST_MAX, OFFER_LIST_QUERY, parseQuery } from '../../../shared/http/query';
import { SLUG_MAX_LENGTH } from '../../../shared/platform/constants';
import { synth } from './app-fixture';

interface Statement {
  LabelMatchStatement?: { Scope: 'LABEL' | 'NAMESPACE'; Key: string };
  AndStatement?: { Statements: Statement[] };
  OrStatement?: { Statements: Statement[] };
  NotStatement?: { Statement: Statement };
}

/** WAF's evaluation of a label statement: LABEL is one label, NAMESPACE every label under it. */
function matches(statement: Statement, labels: string[]): boolean {
  const { LabelMatchStatement: label, AndStatement: and, OrStatement: or, NotStatement: not } = statement;
  if (label) return labels.some((l) => (label.Scope === 'LABEL' ? l === label.Key : l.startsWith(label.Key)));
  if (and) return and.Statements.every((s) => matches(s, labels));
  if (or) return or.Statements.some((s) => matches(s, labels));
  if (not) return !matches(not.Statement, labels);
  throw new Error(`no evaluation for ${JSON.stringify(statement)}`);
}

const CORE = 'awswaf:managed:aws:core-rule-set:';
const BAD_INPUTS = 'awswaf:managed:aws:known-bad-inputs:';

describe('the firewall', () => {
  let refuses: (labels: string[]) => boolean;

  beforeAll(() => {
    const { template } = synth('dev', { waf: { enabled: true } });
    const [acl] = Object.values(template.findResources('AWS::WAFv2::WebACL'));
    const blocking = (acl.Properties.Rules as { Statement: Statement; Action?: { Block?: unknown } }[]).filter(
      (rule) => rule.Action?.Block && JSON.stringify(rule.Statement).includes('LabelMatchStatement'),
    );
    expect(blocking).toHaveLength(1);
    refuses = (labels) => matches(blocking[0].Statement, labels);
  });

  it('lets through the longest requests the API accepts, past the common rule set’s size rules', () => {
    // 200 distinct ids of 16 digits: a query over the rule's 2,048 bytes that the API answers.
    const ids = Array.from({ length: LIST_MAX.ids }, (_, i) => String(Number.MAX_SAFE_INTEGER - i)).join(',');
    expect(parseQuery(OFFER_LIST_QUERY.earn(), { ids: [ids] }).ids).toHaveLength(LIST_MAX.ids);
    expect(`ids=${encodeURIComponent(ids)}`.length).toBeGreaterThan(2_048);
    // A slug the API looks up (404 when unknown), percent-encoded past the rule's 1,024-byte path.
    expect(`/api/v1/exchanges/${encodeURIComponent('é'.repeat(SLUG_MAX_LENGTH))}`.length).toBeGreaterThan(1_024);

    expect(refuses([`${CORE}SizeRestrictions_QueryString`])).toBe(false);
    expect(refuses([`${CORE}SizeRestrictions_URIPath`])).toBe(false);
    expect(refuses([`${CORE}NoUserAgent_Header`, `${CORE}SizeRestrictions_QueryString`])).toBe(false);
    expect(refuses([])).toBe(false);
  });

  it('still refuses what the managed rules find, beside a label it lets through too', () => {
    for (const labels of [
      [`${CORE}CrossSiteScripting_QueryArguments`],
      [`${CORE}SizeRestrictions_QueryString`, `${CORE}CrossSiteScripting_QueryArguments`],
      [`${CORE}NoUserAgent_Header`, `${CORE}GenericRFI_QueryArguments`],
      [`${CORE}SizeRestrictions_URIPath`, `${CORE}GenericLFI_URIPath`],
      [`${CORE}SizeRestrictions_Body`],
      // A rule AWS adds later refuses through the namespace.
      [`${CORE}SomeFutureRule_QueryArguments`],
      [`${BAD_INPUTS}Log4JRCE_QueryString`, `${CORE}NoUserAgent_Header`],
    ]) {
      expect({ labels, refused: refuses(labels) }).toEqual({ labels, refused: true });
    }
  });
});
