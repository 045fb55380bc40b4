/**
 * Actuator support for Baton: the {@code baton} health indicator and the {@code baton} endpoint, auto-configured by
 * {@link dev.baton.spring.actuate.BatonActuatorAutoConfiguration}.
 */
package dev.baton.spring.actuate;
