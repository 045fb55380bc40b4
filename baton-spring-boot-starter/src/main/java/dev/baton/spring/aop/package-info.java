/**
 * The behaviour behind {@link dev.baton.spring.DistributedLock}, {@link dev.baton.spring.RateLimited} and
 * {@link dev.baton.spring.LeaderOnly}: Spring AOP
 * advisors and their interceptors, the parsing of the annotations' attributes (SpEL, durations, placeholders) at
 * startup, the misuse checks that fail the application's start (methods proxies cannot intercept, self-invocation
 * found in the bean class's bytecode), and the bounded {@link dev.baton.spring.RateLimiterRegistry}.
 */
package dev.baton.spring.aop;
