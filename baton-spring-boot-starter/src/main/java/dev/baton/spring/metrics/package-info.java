/**
 * Micrometer meters of Baton's events: {@link dev.baton.spring.metrics.MicrometerBatonListener}, auto-configured by
 * {@link dev.baton.spring.metrics.BatonMetricsAutoConfiguration}.
 */
package dev.baton.spring.metrics;
