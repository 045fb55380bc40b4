/**
 * Spring Boot auto-configuration of one {@code dev.baton.Baton} from {@code spring.data.redis.*} and {@code baton.*}:
 * {@link dev.baton.spring.autoconfigure.BatonAutoConfiguration}.
 */
package dev.baton.spring.autoconfigure;
