/**
 * Leader election: leadership is a watchdog-renewed lease of the election's own lock, taken with the plain lock's
 * protocol (on Redlock masters, the Redlock's), so that every wait, renewal, handover and lost-lease path is the
 * engine's; this family adds the keys, the candidacy that campaigns in the background and tells its listener, and
 * the reading of the leader. See docs/leader-election.md.
 */
package dev.baton.internal.election;
