package dev.baton.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.test.RedisExtension;
import dev.baton.test.RedisServer;
import io.lettuce.core.resource.ClientResources;
import java.nio.file.Path;
import java.time.Duration;
import java.io.IOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.health.actuate.endpoint.CompositeHealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.ClassUtils;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * What an application gets from the starter, with and without Spring Data Redis: with only the starter, one Redis
 * connection (Baton's), the {@code baton} health component alone, no Spring Data Redis client and no Spring Data
 * repository scanning; with Spring Data Redis brought by the application, everything Boot gives it, while Baton still
 * reads {@code spring.data.redis.*} and service connections.
 *
 * <p>The starter's own test class path has Boot's data-redis module (the starter compiles against it, optionally), so
 * an application with only the starter is started on a class loader that hides Spring Data and Boot's data modules
 * (their classes and every resource of their jars, auto-configuration lists included), as they are missing from such
 * an application's class path.
 */
@ExtendWith(OutputCaptureExtension.class)
class SpringDataRedisIT {
    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final String SPRING_DATA_REDIS_FACTORY =
            "org.springframework.data.redis.connection.RedisConnectionFactory";

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }

    /** An application whose Redis comes from a service connection (as Testcontainers' {@code @ServiceConnection}). */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class ServiceConnectionApp {
        @Bean
        DataRedisConnectionDetails serviceConnection() {
            return new DataRedisConnectionDetails() {
                @Override
                public Standalone getStandalone() {
                    return Standalone.of(redis.server().host(), redis.server().port(), 6);
                }
            };
        }
    }

    @Test
    void withOnlyTheStarterTheApplicationHasOneConnectionAndOnlyBatonsHealthComponent(CapturedOutput output) {
        ClassLoader withoutSpringData = new WithoutSpringData(SpringDataRedisIT.class.getClassLoader());
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                .resourceLoader(new DefaultResourceLoader(withoutSpringData)).web(WebApplicationType.NONE)
                .properties(properties("spring.data.redis.database=3")).run()) {
            assertThat(ClassUtils.isPresent(SPRING_DATA_REDIS_FACTORY, context.getClassLoader()))
                    .as("Spring Data Redis is hidden from the application").isFalse();
            assertThat(context.getBeanNamesForType(RedisConnectionFactory.class)).isEmpty();
            Baton baton = context.getBean(Baton.class);
            assertThat(baton.config().uri()).endsWith(":" + redis.server().port() + "/3");
            assertThat(context.getBeanNamesForType(ClientResources.class)).as("Boot's Lettuce resources").isEmpty();
            // Health checks run every contributor: Spring Data Redis' own would open its connection now.
            // Of the Redis health components, only Baton's (Boot's own disk space, ping and so on stay).
            assertThat(healthComponents(context)).contains("baton").doesNotContain("redis");
            assertThat(healthComponents(context)).contains("baton").doesNotContain("redis");
            assertThat(baton.lock("one-connection").tryLock()).isTrue();
            baton.lock("one-connection").unlock();
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(applicationConnections(redis.server())).hasSize(1));
        }
        assertThat(output.getAll()).contains("Started").doesNotContain("Multiple Spring Data modules");
    }

    @Test
    void theStarterDoesNotPassSpringDataRedisOnToTheApplication() throws Exception {
        // What an application gets with the starter is fixed by its pom: Spring Data Redis and Boot's modules for it
        // stay optional, so that only an application that asks for them has them.
        Element project = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(Path.of("pom.xml").toFile())
                .getDocumentElement();
        NodeList dependencies = project.getElementsByTagName("dependency");
        List<String> passedOn = new ArrayList<>();
        for (int i = 0; i < dependencies.getLength(); i++) {
            Element dependency = (Element) dependencies.item(i);
            String artifact = text(dependency, "artifactId");
            boolean springDataRedis = artifact.contains("data-redis") || artifact.startsWith("spring-data-");
            boolean managed = dependency.getParentNode().getParentNode().getNodeName().equals("dependencyManagement");
            String scope = text(dependency, "scope");
            if (springDataRedis && !managed && !text(dependency, "optional").equals("true") && !scope.equals("test")) {
                passedOn.add(artifact);
            }
        }
        assertThat(passedOn).isEmpty();
    }

    @Test
    void anApplicationWithSpringDataRedisKeepsItAndBatonStillReadsTheProperties() {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE).properties(properties("spring.data.redis.database=5")).run()) {
            Baton baton = context.getBean(Baton.class);
            assertThat(baton.config().uri()).endsWith(":" + redis.server().port() + "/5");
            assertThat(context.getBeanNamesForType(RedisConnectionFactory.class)).hasSize(1);
            assertThat(healthComponents(context)).contains("baton", "redis");
            // One set of Lettuce event loops for both clients.
            assertThat(baton.config().clientResources()).containsSame(context.getBean(ClientResources.class));
            baton.lock("beside-spring-data").lock();
            assertThat(redis.server().command("INFO", "keyspace")).contains("db5:keys=");
            baton.lock("beside-spring-data").unlock();
        }
    }

    @Test
    void anApplicationWithSpringDataRedisHasItsServiceConnectionHonouredByBaton() {
        // Nothing listens on port 1: only the service connection leads to Redis.
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ServiceConnectionApp.class)
                .web(WebApplicationType.NONE).properties("spring.main.banner-mode=off",
                        "spring.data.redis.host=" + redis.server().host(), "spring.data.redis.port=1").run()) {
            Baton baton = context.getBean(Baton.class);
            assertThat(baton.config().uri()).endsWith(":" + redis.server().port() + "/6");
            assertThat(baton.lock("served").tryLock()).isTrue();
            baton.lock("served").unlock();
        }
    }

    /** The test class path without the jars of Spring Data and Boot's modules for it. */
    static final class WithoutSpringData extends ClassLoader {
        private static final List<String> HIDDEN_PACKAGES = List.of("org.springframework.data.",
                "org.springframework.boot.data.");
        private static final List<String> HIDDEN_JARS = List.of("/spring-data-", "/spring-boot-data-");

        WithoutSpringData(ClassLoader parent) {
            super(parent);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (HIDDEN_PACKAGES.stream().anyMatch(name::startsWith)) {
                throw new ClassNotFoundException(name + " (hidden: not on an application's class path)");
            }
            return super.loadClass(name, resolve);
        }

        @Override
        public Enumeration<URL> getResources(String name) throws IOException {
            List<URL> visible = new ArrayList<>();
            for (URL url : Collections.list(getParent().getResources(name))) {
                if (HIDDEN_JARS.stream().noneMatch(jar -> url.toString().contains(jar))) {
                    visible.add(url);
                }
            }
            return Collections.enumeration(visible);
        }

        @Override
        public URL getResource(String name) {
            try {
                Enumeration<URL> urls = getResources(name);
                return urls.hasMoreElements() ? urls.nextElement() : null;
            } catch (IOException e) {
                return null;
            }
        }
    }

    private static String[] properties(String... more) {
        List<String> all = new ArrayList<>(List.of("spring.main.banner-mode=off",
                "spring.data.redis.host=" + redis.server().host(), "spring.data.redis.port=" + redis.server().port(),
                "management.endpoint.health.show-components=always"));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    /** The components of the application's health, as {@code /actuator/health} would show them. */
    private static Set<String> healthComponents(ConfigurableApplicationContext context) {
        CompositeHealthDescriptor health = (CompositeHealthDescriptor) context.getBean(HealthEndpoint.class).health();
        return health.getComponents().keySet();
    }

    /**
     * The clients connected to the server, but for the test kit's own: it sends each command on a fresh socket, the
     * one whose last command is this {@code CLIENT LIST} (plain {@code client} before Redis 7).
     */
    private static List<String> applicationConnections(RedisServer server) {
        return Arrays.stream(server.command("CLIENT", "LIST").split("\n")).filter(line -> !line.isBlank())
                .filter(line -> !line.contains(" cmd=client|list ") && !line.contains(" cmd=client ")).toList();
    }

    private static String text(Element parent, String tag) {
        NodeList nodes = parent.getElementsByTagName(tag);
        return nodes.getLength() == 0 ? "" : nodes.item(0).getTextContent().trim();
    }
}
