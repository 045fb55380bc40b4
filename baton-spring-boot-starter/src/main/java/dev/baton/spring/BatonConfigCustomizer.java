package dev.baton.spring;

import dev.baton.BatonConfig;

/**
 * Adjusts the {@link BatonConfig.Builder} of the auto-configured {@code Baton} after the starter has applied
 * {@code spring.data.redis.*} and {@code baton.*}: declare one or more as beans (ordered by {@code @Order} or
 * {@code Ordered}) for settings that have no property, such as replica acknowledgement or TLS options built in code.
 * What a customizer sets wins over the properties; {@link BatonConfig.Builder#build()} still checks the result, so a
 * contradictory setting fails the application's start with the builder's message.
 *
 * <p>Called once, on the thread that creates the {@code Baton} bean; an exception it throws fails the start.
 */
@FunctionalInterface
public interface BatonConfigCustomizer {

    /**
     * Adjusts the builder.
     *
     * @param builder the builder, with the properties already applied
     */
    void customize(BatonConfig.Builder builder);
}
