/**
 * HTTP answers to refused {@link dev.baton.spring.RateLimited @RateLimited} calls: Spring MVC and WebFlux turn a
 * {@link dev.baton.RateLimitExceededException} that no application handler took into {@code 429 Too Many Requests}
 * with {@code Retry-After}, the IETF {@code RateLimit} and {@code RateLimit-Policy} fields and an
 * {@code application/problem+json} body. Switched off with {@code baton.rate-limit.web-responses=false}.
 */
package dev.baton.spring.web;
