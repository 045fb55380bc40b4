/**
 * Leader elections declared by property ({@code baton.elections.NAME.enabled}): joined at startup by
 * {@link dev.baton.spring.election.ElectionCandidates}, which publishes {@link dev.baton.spring.LeadershipGranted} and
 * {@link dev.baton.spring.LeadershipRevoked} and tells {@link dev.baton.spring.LeaderOnly @LeaderOnly} methods and the
 * actuator endpoint whether this instance leads; auto-configured by
 * {@link dev.baton.spring.election.BatonElectionsAutoConfiguration}.
 */
package dev.baton.spring.election;
