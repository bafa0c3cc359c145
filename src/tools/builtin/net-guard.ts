import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";

/**
 * Addresses an agent must not reach by default: loopback, private, link-local, carrier-grade NAT,
 * multicast, reserved and unspecified ranges, and IPv6 forms that embed an IPv4 address
 * (`BlockList` checks IPv4-mapped IPv6 addresses such as ::ffff:127.0.0.1 against the IPv4 rules).
 */
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  BLOCKED.addSubnet(net, prefix, "ipv4");
}
for (const [net, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["64:ff9b::", 96],
  ["100::", 64],
  ["2002::", 16],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const) {
  BLOCKED.addSubnet(net, prefix, "ipv6");
}

/** Whether `address` (an IP literal) is loopback, private, link-local or otherwise not public. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return BLOCKED.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** A resolver with the shape of `dns.lookup(host, { all: true }, cb)`; tests pass their own. */
export type Resolver = (
  hostname: string,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolver: Resolver = (hostname, callback) => dnsLookup(hostname, { all: true }, callback);

/** A host that resolved to an address the guard refuses. */
export class BlockedAddressError extends Error {
  constructor(
    readonly hostname: string,
    readonly address: string,
  ) {
    super(
      `Refused: ${hostname} resolves to ${address}, a loopback, private or link-local address (not allowed)`,
    );
    this.name = "BlockedAddressError";
  }
}

/**
 * A `lookup` for `http.request` that resolves the name and refuses private addresses *inside* the
 * connection's own lookup, so the address checked is the address connected to (no DNS-rebinding
 * window between a check and the connect).
 */
export function guardedLookup(
  allowPrivate: (hostname: string) => boolean,
  resolver = systemResolver,
): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    resolver(hostname, (error, addresses) => {
      if (error) return callback(error);
      if (addresses.length === 0) {
        return callback(Object.assign(new Error(`No address for ${hostname}`), { code: "ENOTFOUND" }));
      }
      if (!allowPrivate(hostname)) {
        const bad = addresses.find((a) => isPrivateAddress(a.address));
        if (bad) return callback(new BlockedAddressError(hostname, bad.address));
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0] as LookupAddress;
      return callback(null, first.address, first.family);
    });
  }) as LookupFunction;
}
