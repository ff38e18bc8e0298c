/**
 * Where a delivery may go (CONTRACT §14 "Targets", docs/security.md "Webhook targets"). Deployed
 * stages: `https` only, and every address the host resolves to must be public unicast, checked at
 * creation and again at every attempt; the connection then goes to the address checked (the sender
 * pins it), so a name that resolves differently a moment later (DNS rebinding) changes nothing. The
 * ranges are ipaddr.js's: anything it does not call `unicast` (loopback, private, shared, link-local
 * with the metadata address, multicast, reserved, unique-local, IPv4-mapped, 6to4, Teredo …) is
 * refused. The local stage sends only to this machine's loopback.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import type { TargetRule } from './subscription';

/** Every address a host name resolves to. */
export type Lookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemLookup: Lookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Whether an address is public unicast: the only kind a deployed stage sends to.
 * @internal (exported for its tests)
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  return parsed.range() === 'unicast';
}

const isLoopback = (address: string): boolean =>
  ipaddr.isValid(address) && ipaddr.parse(address).range() === 'loopback';

/** The URL's host without the brackets of an IPv6 literal. */
const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** The addresses a URL's host stands for: itself when it is an address, else what it resolves to. */
async function addressesOf(url: URL, lookup: Lookup): Promise<{ address: string; family: number }[]> {
  const host = hostOf(url);
  if (ipaddr.isValid(host)) return [{ address: host, family: ipaddr.parse(host).kind() === 'ipv6' ? 6 : 4 }];
  return lookup(host);
}

export interface CheckedTarget {
  address: string;
  family: number;
}

/**
 * The address to connect to, or why the target is refused (the reason of a failed attempt's
 * `target_refused`, or of a refused creation).
 */
export async function resolveTarget(
  url: URL,
  rule: TargetRule,
  lookup: Lookup = systemLookup,
): Promise<CheckedTarget | { refused: string }> {
  if (rule === 'local') {
    if (url.protocol !== 'http:' || !['127.0.0.1', 'localhost'].includes(url.hostname))
      return { refused: 'the local stage sends only to http://127.0.0.1 or http://localhost' };
    if (url.hostname === '127.0.0.1') return { address: '127.0.0.1', family: 4 };
  } else if (url.protocol !== 'https:') return { refused: 'only https targets are accepted' };
  let addresses: { address: string; family: number }[];
  try {
    addresses = await addressesOf(url, lookup);
  } catch {
    return { refused: `${hostOf(url)} does not resolve` };
  }
  if (addresses.length === 0) return { refused: `${hostOf(url)} does not resolve` };
  const allowed = rule === 'local' ? isLoopback : isPublicAddress;
  const bad = addresses.find((a) => !allowed(a.address));
  const kind = rule === 'local' ? 'a loopback' : 'a public';
  if (bad) return { refused: `${hostOf(url)} resolves to ${bad.address}, which is not ${kind} address` };
  return addresses[0];
}

/** Why a target is refused, or undefined when it is accepted. */
export async function checkTarget(url: URL, rule: TargetRule, lookup?: Lookup): Promise<string | undefined> {
  const target = await resolveTarget(url, rule, lookup);
  return 'refused' in target ? target.refused : undefined;
}
