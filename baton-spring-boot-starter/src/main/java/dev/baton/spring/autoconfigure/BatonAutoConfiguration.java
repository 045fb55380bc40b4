package dev.baton.spring.autoconfigure;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.spring.BatonProperties;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configures one {@link Baton} from {@code spring.data.redis.*} and {@code baton.*}, unless the application
 * defines its own {@code Baton} bean. (First cut: standalone Redis from url or host and port.)
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class)
@ConditionalOnClass(Baton.class)
@ConditionalOnProperty(prefix = "baton", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties({BatonProperties.class, DataRedisProperties.class})
public class BatonAutoConfiguration {

    /**
     * The application's Baton, closed with the context.
     *
     * @param redis where to connect
     * @param baton how to tune Baton
     * @return the Baton
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public Baton baton(DataRedisProperties redis, BatonProperties baton) {
        String uri = redis.getUrl() != null ? redis.getUrl()
                : "redis://" + redis.getHost() + ":" + redis.getPort() + "/" + redis.getDatabase();
        BatonConfig.Builder builder = BatonConfig.builder().uri(uri);
        if (redis.getPassword() != null) {
            builder.password(redis.getPassword().toCharArray());
        }
        if (redis.getUsername() != null) {
            builder.username(redis.getUsername());
        }
        if (baton.getNamespace() != null) {
            builder.namespace(baton.getNamespace());
        }
        return Baton.connect(builder.build());
    }
}
