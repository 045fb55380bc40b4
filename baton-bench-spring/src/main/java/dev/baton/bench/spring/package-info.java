/**
 * JMH benchmarks of the Spring Boot starter's annotations: {@code @DistributedLock} and {@code @RateLimited} against
 * calling Baton directly and against ShedLock's and Bucket4j's Spring integrations, one Spring Boot application per
 * JMH fork, one redis-server for all. Run by {@link dev.baton.bench.spring.SpringBenchMain}.
 */
package dev.baton.bench.spring;
