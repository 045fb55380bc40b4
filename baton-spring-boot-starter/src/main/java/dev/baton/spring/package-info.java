/**
 * Baton for Spring Boot: the annotations {@link dev.baton.spring.DistributedLock} and
 * {@link dev.baton.spring.RateLimited}, and what they need. The starter auto-configures one {@code dev.baton.Baton}
 * from {@code spring.data.redis.*} and {@code baton.*}.
 */
package dev.baton.spring;
