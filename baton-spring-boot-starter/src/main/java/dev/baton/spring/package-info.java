/**
 * Baton for Spring Boot: the annotations {@link dev.baton.spring.DistributedLock}, {@link dev.baton.spring.RateLimited}
 * and {@link dev.baton.spring.LeaderOnly}, the leadership events {@link dev.baton.spring.LeadershipGranted} and
 * {@link dev.baton.spring.LeadershipRevoked} of the elections declared under {@code baton.elections}, and what they
 * need. The starter auto-configures one {@code dev.baton.Baton}
 * from {@code spring.data.redis.*} and {@code baton.*}.
 */
package dev.baton.spring;
