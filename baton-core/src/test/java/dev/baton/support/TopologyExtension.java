package dev.baton.support;

import dev.baton.test.RedisCluster;
import dev.baton.test.RedisExtension;
import dev.baton.test.RedisSentinelGroup;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestTemplateInvocationContext;
import org.junit.jupiter.api.extension.TestTemplateInvocationContextProvider;

/**
 * Gives a test class a Redis {@link Deployment} per test: for {@code @Test} methods a standalone server of the
 * class's own (a {@link RedisExtension}: healed and flushed before every test), and for {@link OnEveryTopology}
 * methods one run per {@link Topology}.
 *
 * <p>Use {@code @RegisterExtension static final TopologyExtension redis = new TopologyExtension();} and call
 * {@link #deployment()} in {@code @BeforeEach} methods and tests.
 *
 * <p>The Sentinel group and the cluster take seconds to start, so each is started once per JVM, the first time a
 * test needs it, shared by every class, and closed when the test run ends (through JUnit's root store). Before each
 * run on one of them, the extension waits until it serves again (in case an earlier test disturbed it) and deletes
 * every key and script on its masters. Tests on a shared deployment must leave it running: to fail over, migrate slots
 * or kill nodes, start a deployment of your own.
 *
 * <p>The system property {@value #TOPOLOGIES_PROPERTY} (labels separated by commas, e.g. {@code standalone}) limits
 * the topologies that {@link OnEveryTopology} methods run on; by default they run on all. CI's second run of the lock
 * tests, on the Redis 6.2 binary of the embedded-redis jar, uses it to stay on one server (see baton-core's pom.xml).
 *
 * <p>Not for tests run concurrently within a class (they would share and flush the same deployments).
 */
public final class TopologyExtension
        implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, TestTemplateInvocationContextProvider {

    /** The system property that limits the topologies of {@link OnEveryTopology} methods. */
    public static final String TOPOLOGIES_PROPERTY = "baton.test.topologies";

    private static final ExtensionContext.Namespace SHARED =
            ExtensionContext.Namespace.create(TopologyExtension.class, "shared");

    private final RedisExtension standaloneServer = new RedisExtension();
    private final Deployment standalone = Deployment.standalone(standaloneServer::server);
    private volatile Deployment current;

    /** Creates the extension; deployments are started lazily by JUnit's callbacks. */
    public TopologyExtension() {
    }

    /**
     * The deployment of the running test.
     *
     * @throws IllegalStateException outside a test (before JUnit's {@code beforeEach} callbacks)
     */
    public Deployment deployment() {
        Deployment d = current;
        if (d == null) {
            throw new IllegalStateException("no deployment yet: TopologyExtension chooses it before each test");
        }
        return d;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        standaloneServer.beforeAll(context);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        current = null;
        standaloneServer.afterAll(context);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        // Runs before the invocation's own callback (class-level extensions come first), which may choose another.
        standaloneServer.beforeEach(context);
        current = standalone;
    }

    @Override
    public boolean supportsTestTemplate(ExtensionContext context) {
        return context.getRequiredTestMethod().isAnnotationPresent(OnEveryTopology.class);
    }

    @Override
    public Stream<TestTemplateInvocationContext> provideTestTemplateInvocationContexts(ExtensionContext context) {
        return selected().stream().map(this::runOn);
    }

    private static List<Topology> selected() {
        String property = System.getProperty(TOPOLOGIES_PROPERTY, "").strip();
        if (property.isEmpty()) {
            return List.of(Topology.values());
        }
        return Arrays.stream(property.split(",")).map(String::strip)
                .map(label -> Arrays.stream(Topology.values()).filter(t -> t.label().equals(label)).findFirst()
                        .orElseThrow(() -> new IllegalArgumentException(TOPOLOGIES_PROPERTY + " names '" + label
                                + "'; the topologies are " + Arrays.stream(Topology.values()).map(Topology::label)
                                .toList())))
                .distinct().toList();
    }

    private TestTemplateInvocationContext runOn(Topology topology) {
        return new TestTemplateInvocationContext() {
            @Override
            public String getDisplayName(int invocationIndex) {
                return "[" + topology.label() + "]";
            }

            @Override
            public List<Extension> getAdditionalExtensions() {
                return List.of((BeforeEachCallback) context -> current = settled(topology, context));
            }
        };
    }

    private Deployment settled(Topology topology, ExtensionContext context) {
        if (topology == Topology.STANDALONE) {
            return standalone; // healed and flushed by the class-level callback
        }
        Deployment shared = context.getRoot().getStore(SHARED)
                .getOrComputeIfAbsent(topology, SharedDeployment::start, SharedDeployment.class).deployment;
        shared.settleAndFlush();
        return shared;
    }

    /** A Sentinel group or a cluster for the whole test run; JUnit closes it with the root context. */
    private static final class SharedDeployment implements ExtensionContext.Store.CloseableResource {
        final Deployment deployment;
        private final AutoCloseable nodes;

        private SharedDeployment(Deployment deployment, AutoCloseable nodes) {
            this.deployment = deployment;
            this.nodes = nodes;
        }

        static SharedDeployment start(Topology topology) {
            if (topology == Topology.SENTINEL) {
                RedisSentinelGroup group = RedisSentinelGroup.start();
                return new SharedDeployment(Deployment.sentinel(group), group);
            }
            RedisCluster cluster = RedisCluster.start();
            return new SharedDeployment(Deployment.cluster(cluster), cluster);
        }

        @Override
        public void close() throws Exception {
            nodes.close();
        }
    }
}
