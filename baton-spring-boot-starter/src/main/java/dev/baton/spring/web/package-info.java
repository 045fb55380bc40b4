/**
 * HTTP answers to Baton's expected failures in Spring MVC and WebFlux, each only where no application handler took
 * the exception: a refused {@link dev.baton.spring.RateLimited @RateLimited} call
 * ({@link dev.baton.RateLimitExceededException}) becomes {@code 429 Too Many Requests} with {@code Retry-After}, the
 * IETF {@code RateLimit} and {@code RateLimit-Policy} fields and an {@code application/problem+json} body (switched
 * off with {@code baton.rate-limit.web-responses=false}); a lock not acquired in time and Redis unavailable become
 * {@code 503 Service Unavailable} with {@code Retry-After} and a problem+json body (switched off with
 * {@code baton.web.unavailable-responses=false}).
 */
package dev.baton.spring.web;
