package dev.baton.test;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension that gives a test class one real {@link RedisServer}.
 *
 * <p>Use {@code @ExtendWith(RedisExtension.class)} and declare {@link RedisServer} parameters on test methods,
 * lifecycle methods or the constructor; or {@code @RegisterExtension static final RedisExtension redis = new
 * RedisExtension();} and call {@link #server()}.
 *
 * <p>Guarantees:
 * <ul>
 *   <li>One server per test class, started before the first callback or parameter that needs it. {@code @Nested}
 *       classes share the enclosing class' server.</li>
 *   <li>Before each test, a server that a previous test left paused is resumed, one left stopped or killed is
 *       restarted on the same port, and one left closed is replaced by a new server (on a new port); then
 *       {@code FLUSHALL} and {@code SCRIPT FLUSH} run, so every test starts with a healthy, empty server.</li>
 *   <li>The server is closed after the class, whether its tests passed or failed. If the extension is registered in a
 *       way that JUnit does not call {@code afterAll} for (a non-static {@code @RegisterExtension} field), the server is
 *       still closed when the class' extension context closes.</li>
 * </ul>
 *
 * <p>Failure behaviour: if the server cannot be started, restarted or flushed, the callback throws and JUnit fails
 * the affected tests.
 *
 * <p>Thread-safe: {@link #server()} may be called from any thread, and starting or restarting the server is
 * synchronized. Isolation is per test class, though: tests of one class run concurrently would share (and flush) the
 * same server.
 */
public final class RedisExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(RedisExtension.class);
    private static final String KEY = "server";

    private volatile RedisServer server;

    /** Creates the extension; the server is started lazily by JUnit's callbacks. */
    public RedisExtension() {
    }

    /**
     * The server of the current test class.
     *
     * @return the server; the same object for the whole class, unless a test closed it
     * @throws IllegalStateException if called before JUnit has started it (e.g. from a static initializer)
     */
    public RedisServer server() {
        RedisServer current = server;
        if (current == null) {
            throw new IllegalStateException("no RedisServer yet: RedisExtension starts it in beforeAll/beforeEach");
        }
        return current;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        server = holder(context).get();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        RedisServer healthy = holder(context).healthy();
        server = healthy;
        healthy.command("FLUSHALL");
        healthy.command("SCRIPT", "FLUSH");
    }

    @Override
    public void afterAll(ExtensionContext context) {
        // remove() only looks at this context's own store, so a @Nested class never closes its parent's server.
        Holder own = context.getStore(NAMESPACE).remove(KEY, Holder.class);
        if (own != null) {
            own.close();
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == RedisServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        // Lazily, because with PER_CLASS lifecycle the constructor is resolved before beforeAll runs.
        RedisServer current = holder(extensionContext).get();
        server = current;
        return current;
    }

    /** The holder stored on the class-level context, so method-level calls and the class share one server. */
    private static Holder holder(ExtensionContext context) {
        ExtensionContext owner = context;
        while (owner.getTestMethod().isPresent() && owner.getParent().isPresent()) {
            owner = owner.getParent().get();
        }
        // Store lookups fall back to parent contexts, so a @Nested class finds its enclosing class' holder.
        return owner.getStore(NAMESPACE).getOrComputeIfAbsent(KEY, key -> new Holder(), Holder.class);
    }

    /** Owns the server; closed by JUnit together with the context it is stored in if afterAll did not run. */
    private static final class Holder implements ExtensionContext.Store.CloseableResource {
        private RedisServer server;

        synchronized RedisServer get() {
            if (server == null || server.isClosed()) {
                server = RedisServer.start();
            }
            return server;
        }

        synchronized RedisServer healthy() {
            RedisServer current = get();
            if (current.isPaused()) {
                current.resume();
            }
            if (!current.isRunning()) {
                current.restart();
            }
            return current;
        }

        @Override
        public synchronized void close() {
            if (server != null) {
                server.close();
            }
        }
    }
}
