package dev.baton.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.TestTemplate;

/**
 * Runs a test once on every {@link Topology}, in place of {@code @Test}. The class must register a
 * {@link TopologyExtension} (which supplies the runs); during each run {@link TopologyExtension#deployment()} is that
 * run's deployment, already set when {@code @BeforeEach} methods run.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@TestTemplate
public @interface OnEveryTopology {
}
