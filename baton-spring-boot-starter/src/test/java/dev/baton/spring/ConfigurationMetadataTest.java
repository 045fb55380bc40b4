package dev.baton.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.URL;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The starter's jar describes every {@code baton.*} property for IDE completion: the configuration processor's
 * metadata, merged with the additional file that names Baton's own defaults, read from the built classes.
 */
class ConfigurationMetadataTest {

    /** The {@code baton.*} entries of every metadata file on the class path, by name. */
    private static Map<String, JsonNode> batonProperties() throws Exception {
        Map<String, JsonNode> properties = new HashMap<>();
        List<URL> files = Collections.list(ConfigurationMetadataTest.class.getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"));
        for (URL file : files) {
            try (InputStream in = file.openStream()) {
                for (JsonNode property : JsonMapper.builder().build().readTree(in).path("properties")) {
                    String name = property.path("name").asString();
                    if (name.startsWith("baton.")) {
                        properties.put(name, property);
                    }
                }
            }
        }
        return properties;
    }

    @Test
    void everyBatonPropertyIsDescribedWithItsTypeAndTheMainOnesWithTheirDefaults() throws Exception {
        Map<String, JsonNode> properties = batonProperties();
        assertThat(properties).containsKeys("baton.enabled", "baton.namespace", "baton.command-timeout",
                "baton.watchdog-lease", "baton.recheck-interval", "baton.fencing-token-retention",
                "baton.local-handoff-limit", "baton.fairness-threshold", "baton.lock.wait-time",
                "baton.rate-limit.fail-open", "baton.rate-limit.web-responses", "baton.rate-limit.max-limiters",
                "baton.rate-limit.timeout", "baton.metrics.enabled", "baton.metrics.max-names",
                "baton.redlock.nodes", "baton.redlock.drift-factor", "baton.redlock.max-lease",
                "baton.web.unavailable-responses", "baton.elections");
        assertThat(properties.values()).allSatisfy(property -> {
            assertThat(property.path("description").asString()).as(property.path("name").asString())
                    .hasSizeGreaterThan(20).doesNotContain("{@code");
            assertThat(property.path("type").asString()).isNotBlank();
        });
        Map<String, String> defaults = new HashMap<>();
        properties.forEach((name, property) -> defaults.put(name, property.path("defaultValue").asString()));
        assertThat(defaults).containsEntry("baton.enabled", "true").containsEntry("baton.namespace", "baton")
                .containsEntry("baton.command-timeout", "3s").containsEntry("baton.watchdog-lease", "30s")
                .containsEntry("baton.lock.wait-time", "30s").containsEntry("baton.metrics.max-names", "100")
                .containsEntry("baton.rate-limit.max-limiters", "10000")
                .containsEntry("baton.rate-limit.fail-open", "false")
                .containsEntry("baton.web.unavailable-responses", "true");
    }
}
