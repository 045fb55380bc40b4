package dev.baton.spring.autoconfigure;

import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.util.StringUtils;

/**
 * The {@code spring.data.redis.*} properties Baton uses, bound by the starter itself with Boot's {@link Binder} (same
 * names, relaxed forms and conversions as Boot's own binding, defaults as in Boot: {@code localhost}, {@code 6379},
 * database 0). The starter does not use Boot's {@code DataRedisProperties}, which lives in Boot's data-redis module
 * beside Spring Data Redis' client: depending on that module would give every application a second Redis client with
 * its own connection and {@code redis} health component. Not a {@code @ConfigurationProperties} class either, so the
 * starter's IDE metadata does not repeat Boot's for these names. Immutable; thread-safe; {@link #toString()} shows no
 * credential.
 *
 * @param url                {@code url}, or null
 * @param host               {@code host}
 * @param port               {@code port}
 * @param database           {@code database}
 * @param username           {@code username}, or null
 * @param password           {@code password}, or null
 * @param timeout            {@code timeout}, or null
 * @param sslEnabled         whether TLS is on: {@code ssl.enabled}, which defaults to whether {@code ssl.bundle} is
 *                           set (as in Boot)
 * @param sslBundle          {@code ssl.bundle} when TLS is on, else null (as in Boot, {@code ssl.enabled=false}
 *                           turns a named bundle off)
 * @param sentinel           {@code sentinel.*}, or null when no {@code sentinel.*} property is set
 * @param clusterNodes       {@code cluster.nodes}, or null when no {@code cluster.*} property is set (as in Boot, a
 *                           cluster property without nodes still asks for a cluster, which then fails to start)
 * @param masterReplicaNodes {@code masterreplica.nodes}, possibly empty
 */
record SpringDataRedisProperties(String url, String host, int port, int database, String username, String password,
                                 Duration timeout, boolean sslEnabled, String sslBundle, Sentinel sentinel,
                                 List<String> clusterNodes, List<String> masterReplicaNodes) {

    static final String PREFIX = "spring.data.redis";

    /**
     * {@code spring.data.redis.sentinel.*}.
     *
     * @param master   {@code master}, or null
     * @param nodes    {@code nodes}, possibly empty
     * @param username {@code username}, or null
     * @param password {@code password}, or null
     */
    record Sentinel(String master, List<String> nodes, String username, String password) {
        @Override
        public String toString() {
            return "Sentinel[master=" + master + ", nodes=" + nodes + "]";
        }
    }

    /**
     * Binds the properties.
     *
     * @param environment the application's environment
     * @return the bound properties
     * @throws org.springframework.boot.context.properties.bind.BindException if a value has the wrong type, naming its
     *                                                                        property
     */
    static SpringDataRedisProperties read(Environment environment) {
        Binder binder = Binder.get(environment);
        Sentinel sentinel = null;
        if (isSet(binder, "sentinel")) {
            sentinel = new Sentinel(string(binder, "sentinel.master"), list(binder, "sentinel.nodes"),
                    string(binder, "sentinel.username"), string(binder, "sentinel.password"));
        }
        String bundle = string(binder, "ssl.bundle");
        bundle = StringUtils.hasText(bundle) ? bundle : null;
        boolean ssl = binder.bind(PREFIX + ".ssl.enabled", Boolean.class).orElse(bundle != null);
        return new SpringDataRedisProperties(string(binder, "url"),
                binder.bind(PREFIX + ".host", String.class).orElse("localhost"),
                binder.bind(PREFIX + ".port", Integer.class).orElse(6379),
                binder.bind(PREFIX + ".database", Integer.class).orElse(0),
                string(binder, "username"), string(binder, "password"),
                binder.bind(PREFIX + ".timeout", Duration.class).orElse(null),
                ssl, ssl ? bundle : null,
                sentinel, isSet(binder, "cluster") ? list(binder, "cluster.nodes") : null,
                list(binder, "masterreplica.nodes"));
    }

    /** Whether any property under the group is set, however nested: Boot then binds the group's object. */
    private static boolean isSet(Binder binder, String group) {
        return binder.bind(PREFIX + "." + group, Bindable.mapOf(String.class, Object.class)).isBound();
    }

    private static String string(Binder binder, String name) {
        return binder.bind(PREFIX + "." + name, String.class).orElse(null);
    }

    private static List<String> list(Binder binder, String name) {
        return binder.bind(PREFIX + "." + name, Bindable.listOf(String.class)).orElse(List.of());
    }

    @Override
    public String toString() {
        return "SpringDataRedisProperties[url=" + (url == null ? null : "(set)") + ", host=" + host + ", port=" + port
                + ", database=" + database + ", username=" + username + ", sentinel=" + sentinel + ", clusterNodes="
                + clusterNodes + "]";
    }
}
