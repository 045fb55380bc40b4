package dev.baton.spring.autoconfigure;

import static dev.baton.spring.autoconfigure.TopologiesIT.allMessages;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.BatonListener;
import dev.baton.spring.BatonConfigCustomizer;
import dev.baton.spring.BatonProperties;
import dev.baton.test.RedisExtension;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

/**
 * {@code baton.*} reaches Baton's configuration, a value Baton cannot use fails the start naming its property, and
 * the starter steps aside for an application's own Baton, shares its Lettuce resources without shutting them down,
 * and wires its listeners and customizers.
 */
class BatonPropertiesIT {
    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, BatonAutoConfiguration.class));

    private ApplicationContextRunner connected() {
        return runner.withPropertyValues("spring.data.redis.host=" + redis.server().host(),
                "spring.data.redis.port=" + redis.server().port());
    }

    @Test
    void everyBatonPropertyLandsInTheConfiguration() {
        connected().withPropertyValues("baton.namespace=shop", "baton.command-timeout=4s",
                "baton.watchdog-lease=20s", "baton.recheck-interval=700ms", "baton.fencing-token-retention=2d",
                "baton.local-handoff-limit=3", "baton.fairness-threshold=0", "baton.rate-limit.timeout=250ms",
                "baton.lock.wait-time=5s", "baton.rate-limit.fail-open=true", "baton.rate-limit.web-responses=false",
                "baton.rate-limit.max-limiters=50", "baton.metrics.enabled=false", "baton.metrics.max-names=7")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    BatonConfig config = context.getBean(Baton.class).config();
                    assertThat(config.namespace()).isEqualTo("shop");
                    assertThat(config.commandTimeout()).isEqualTo(Duration.ofSeconds(4));
                    assertThat(config.watchdogLease()).isEqualTo(Duration.ofSeconds(20));
                    assertThat(config.recheckInterval()).isEqualTo(Duration.ofMillis(700));
                    assertThat(config.fencingTokenRetention()).isEqualTo(Duration.ofDays(2));
                    assertThat(config.localHandoffLimit()).isEqualTo(3);
                    assertThat(config.fairnessThreshold()).isZero();
                    assertThat(config.rateLimitTimeout()).isEqualTo(Duration.ofMillis(250));
                    // the annotations' defaults are read by their interceptors, from the properties bean
                    BatonProperties properties = context.getBean(BatonProperties.class);
                    assertThat(properties.getLock().getWaitTime()).isEqualTo(Duration.ofSeconds(5));
                    assertThat(properties.getRateLimit().isFailOpen()).isTrue();
                    assertThat(properties.getRateLimit().isWebResponses()).isFalse();
                    assertThat(properties.getRateLimit().getMaxLimiters()).isEqualTo(50);
                    assertThat(properties.getMetrics().isEnabled()).isFalse();
                    assertThat(properties.getMetrics().getMaxNames()).isEqualTo(7);
                    context.getBean(Baton.class).lock("in-shop").lock();
                    assertThat(redis.server().command("KEYS", "*")).contains("shop:").doesNotContain("baton:");
                    context.getBean(Baton.class).lock("in-shop").unlock();
                });
    }

    @Test
    void electionsBindByNameInDeclarationOrderAndAreEnabledUnlessSaidOtherwise() {
        connected().withPropertyValues("baton.elections.reports.enabled=true",
                "baton.elections[Orders.Sync].enabled=false", "baton.elections.cleanup.enabled=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    var elections = context.getBean(BatonProperties.class).getElections();
                    assertThat(elections).containsOnlyKeys("reports", "Orders.Sync", "cleanup");
                    assertThat(elections.keySet()).startsWith("reports");
                    assertThat(elections.get("reports").isEnabled()).isTrue();
                    assertThat(elections.get("Orders.Sync").isEnabled()).isFalse();
                    assertThat(new BatonProperties.Election().isEnabled()).isTrue();
                });
        connected().withPropertyValues("baton.elections.reports.enabeld=true")
                .run(context -> assertThat(context).hasFailed());
    }

    @Test
    void unsetPropertiesKeepBatonsDefaultsAndTheClientTimeoutBecomesTheCommandTimeout() {
        connected().run(context -> {
            BatonConfig defaults = BatonConfig.builder().uri("redis://localhost").build();
            BatonConfig config = context.getBean(Baton.class).config();
            assertThat(config.namespace()).isEqualTo(defaults.namespace());
            assertThat(config.commandTimeout()).isEqualTo(defaults.commandTimeout());
            assertThat(config.watchdogLease()).isEqualTo(defaults.watchdogLease());
            assertThat(config.listener()).as("no listener bean, no listener").isEmpty();
        });
        connected().withPropertyValues("spring.data.redis.timeout=1500ms").run(context ->
                assertThat(context.getBean(Baton.class).config().commandTimeout()).isEqualTo(Duration.ofMillis(1500)));
        connected().withPropertyValues("spring.data.redis.timeout=1500ms", "baton.command-timeout=2s").run(context ->
                assertThat(context.getBean(Baton.class).config().commandTimeout()).isEqualTo(Duration.ofSeconds(2)));
    }

    @Test
    void anUnknownBatonPropertyFailsTheStartNamingIt() {
        connected().withPropertyValues("baton.comand-timeout=2s").run(context -> {
            assertThat(context).hasFailed();
            assertThat(allMessages(context.getStartupFailure())).contains("baton.comand-timeout");
        });
    }

    @Test
    void aValueThatDoesNotConvertFailsTheStartNamingTheProperty() {
        connected().withPropertyValues("baton.watchdog-lease=soon").run(context -> {
            assertThat(context).hasFailed();
            assertThat(allMessages(context.getStartupFailure())).contains("baton.watchdog-lease");
        });
    }

    @Test
    void valuesBatonCannotUseFailTheStartNamingTheProperty() {
        for (String bad : List.of("baton.command-timeout=-1s", "baton.watchdog-lease=0s",
                "baton.recheck-interval=-5ms", "baton.local-handoff-limit=-1", "baton.fairness-threshold=-1s",
                "baton.namespace=a{b}", "baton.rate-limit.timeout=0ms", "spring.data.redis.timeout=0s")) {
            connected().withPropertyValues(bad).run(context -> {
                assertThat(context).as(bad).hasFailed();
                assertThat(allMessages(context.getStartupFailure())).as(bad).contains(bad.substring(0, bad.indexOf('=')));
            });
        }
    }

    @Test
    void settingsThatOnlyContradictEachOtherFailWithBatonsMessage() {
        connected().withPropertyValues("baton.command-timeout=1s", "baton.rate-limit.timeout=2s").run(context -> {
            assertThat(context).hasFailed();
            assertThat(allMessages(context.getStartupFailure())).contains("rateLimitTimeout")
                    .contains("baton.*");
        });
    }

    @Test
    void aConnectionDetailsBeanSuchAsAServiceConnectionWinsOverTheProperties() {
        DataRedisConnectionDetails serviceConnection = new DataRedisConnectionDetails() {
            @Override
            public Standalone getStandalone() {
                return Standalone.of(redis.server().host(), redis.server().port(), 4);
            }
        };
        // nothing listens on port 1: only the details bean leads to Redis
        runner.withPropertyValues("spring.data.redis.host=" + redis.server().host(), "spring.data.redis.port=1")
                .withBean(DataRedisConnectionDetails.class, () -> serviceConnection).run(context -> {
                    assertThat(context).hasNotFailed();
                    Baton baton = context.getBean(Baton.class);
                    assertThat(baton.config().uri()).endsWith(":" + redis.server().port() + "/4");
                    assertThat(baton.lock("served").tryLock()).isTrue();
                    baton.lock("served").unlock();
                });
    }

    @Test
    void theStarterStepsAsideForTheApplicationsOwnBaton() {
        connected().withUserConfiguration(OwnBaton.class).run(context -> {
            assertThat(context).hasSingleBean(Baton.class);
            assertThat(context.getBean(Baton.class).config().namespace()).isEqualTo("own");
        });
    }

    @Test
    void batonEnabledFalseTurnsTheStarterOff() {
        connected().withPropertyValues("baton.enabled=false").run(context ->
                assertThat(context).hasNotFailed().doesNotHaveBean(Baton.class));
    }

    @Test
    void theApplicationsClientResourcesAreSharedAndNotShutDownByBaton() throws Exception {
        ClientResources resources = ClientResources.create();
        try {
            connected().withBean("appResources", ClientResources.class, () -> resources, bean -> bean
                    .setDestroyMethodName("")).run(context -> {
                        Baton baton = context.getBean(Baton.class);
                        assertThat(baton.config().clientResources()).containsSame(resources);
                        assertThat(baton.lock("shared").tryLock()).isTrue();
                        baton.lock("shared").unlock();
                    });
            assertThat(resources.eventExecutorGroup().isShuttingDown()).as("Baton closed; resources still run")
                    .isFalse();
        } finally {
            resources.shutdown(0, 2, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void bootsOwnLettuceResourcesAreSharedWhenTheContextHasThem() {
        connected().run(context -> {
            assertThat(context).hasSingleBean(ClientResources.class);
            assertThat(context.getBean(Baton.class).config().clientResources())
                    .containsSame(context.getBean(ClientResources.class));
        });
    }

    @Test
    void everyListenerBeanHearsTheEventsAndOneThatThrowsSilencesNoOther() {
        connected().withUserConfiguration(Listeners.class).run(context -> {
            Baton baton = context.getBean(Baton.class);
            baton.lock("heard").lock();
            baton.lock("heard").unlock();
            Recorder recorder = context.getBean(Recorder.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> recorder.events.size() == 2);
            assertThat(recorder.events).containsExactly("acquired heard", "released heard");
        });
    }

    @Test
    void customizersRunLastAndInOrder() {
        connected().withPropertyValues("baton.namespace=from-properties").withUserConfiguration(Customizers.class)
                .run(context -> {
                    BatonConfig config = context.getBean(Baton.class).config();
                    assertThat(config.namespace()).isEqualTo("second");
                    assertThat(config.replicaAcknowledgement()).isEmpty();
                    assertThat(config.localHandoffLimit()).isZero();
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnBaton {
        @Bean(destroyMethod = "close")
        Baton ownBaton() {
            return Baton.connect(BatonConfig.builder().uri(redis.server().uri()).namespace("own").build());
        }
    }

    static class Recorder implements BatonListener {
        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        public void lockAcquired(LockAcquired event) {
            events.add("acquired " + event.lock());
        }

        @Override
        public void lockReleased(LockReleased event) {
            events.add("released " + event.lock());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Listeners {
        @Bean
        @Order(1)
        BatonListener throwing() {
            return new BatonListener() {
                @Override
                public void lockAcquired(LockAcquired event) {
                    throw new IllegalStateException("a listener's own bug");
                }
            };
        }

        @Bean
        @Order(2)
        Recorder recorder() {
            return new Recorder();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Customizers {
        @Bean
        @Order(2)
        BatonConfigCustomizer second() {
            return builder -> builder.namespace("second");
        }

        @Bean
        @Order(1)
        BatonConfigCustomizer first() {
            return builder -> builder.namespace("first").localHandoffLimit(0);
        }
    }
}
