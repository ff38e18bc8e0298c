/**
 * The target rules (CONTRACT §14 "Targets"): a deployed stage sends only over https to public
 * unicast addresses, every one its host resolves to; the local stage only to loopback.
 */
import { checkTarget, isPublicAddress, type Lookup, resolveTarget } from '../../../shared/webhooks/target';

const resolvesTo =
  (...addresses: string[]): Lookup =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('target rules', () => {
  it.each([
    ['10.0.0.1', false],
    ['172.16.5.4', false],
    ['192.168.1.1', false],
    ['100.64.0.1', false],
    ['127.0.0.1', false],
    ['169.254.169.254', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['::1', false],
    ['fd00::1', false],
    ['fe80::1', false],
    ['::ffff:8.8.8.8', false],
    ['not an address', false],
    ['8.8.8.8', true],
    ['2606:4700:4700::1111', true],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it('refuses on a deployed stage an address literal, a name resolving to a private address, and http', async () => {
    const none = resolvesTo();
    expect(await checkTarget(new URL('https://10.0.0.1/h'), 'public', none)).toMatch(/10\.0\.0\.1/);
    expect(await checkTarget(new URL('https://169.254.169.254/latest'), 'public', none)).toMatch(/not a public/);
    expect(await checkTarget(new URL('https://[::1]:8443/h'), 'public', none)).toMatch(/::1/);
    expect(
      await checkTarget(new URL('https://hooks.example.com/h'), 'public', resolvesTo('93.184.215.14', '10.1.2.3')),
    ).toMatch(/10\.1\.2\.3/);
    expect(await checkTarget(new URL('http://hooks.example.com/h'), 'public', resolvesTo('93.184.215.14'))).toMatch(
      /https/,
    );
    expect(await checkTarget(new URL('https://nowhere.example/h'), 'public', resolvesTo())).toMatch(/does not resolve/);
    const failing: Lookup = async () => {
      throw new Error('ENOTFOUND');
    };
    expect(await checkTarget(new URL('https://nowhere.example/h'), 'public', failing)).toMatch(/does not resolve/);
  });

  it('connects to the address it checked', async () => {
    expect(await resolveTarget(new URL('https://hooks.example.com/h'), 'public', resolvesTo('93.184.215.14'))).toEqual({
      address: '93.184.215.14',
      family: 4,
    });
  });

  it('sends only to loopback on the local stage', async () => {
    expect(await resolveTarget(new URL('http://127.0.0.1:9000/h'), 'local')).toEqual({
      address: '127.0.0.1',
      family: 4,
    });
    expect(await resolveTarget(new URL('http://localhost:9000/h'), 'local', resolvesTo('::1'))).toEqual({
      address: '::1',
      family: 6,
    });
    expect(await checkTarget(new URL('http://localhost:9000/h'), 'local', resolvesTo('10.0.0.1'))).toMatch(/loopback/);
    expect(await checkTarget(new URL('http://example.com:9000/h'), 'local')).toMatch(/local stage/);
  });
});
