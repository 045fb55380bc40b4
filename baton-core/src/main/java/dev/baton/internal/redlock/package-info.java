/**
 * Redlock: the plain lock's driver over a quorum of independent masters ({@code RedlockDriver},
 * {@code redlock-*.lua}), with its admission after a restart ({@code RedlockAdmission}), the counting of answers
 * ({@code QuorumTally}) and the fencing token proposals ({@code TokenProposals}). Reuses the plain lock's typed calls
 * for release, renewal, keep, inspect and force-unlock. Protocol: docs/redlock.md. Internal: not exported.
 */
package dev.baton.internal.redlock;
