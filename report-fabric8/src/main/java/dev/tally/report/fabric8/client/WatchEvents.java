package dev.tally.report.fabric8.client;

import dev.tally.report.fabric8.resource.InputResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * How {@link ApiServerJson#serialization()} reads a watch event of an input's kind ({@link
 * InputResource}): in one pass over its text, binding the object straight to the input's class, and
 * reading of a DELETED event nothing but the object's identity. Events of other kinds are read as
 * fabric8 reads them.
 *
 * <p>fabric8 reads a watch event's object into a tree of nodes first, to find its kind, then binds
 * the tree to the class: every ADDED and MODIFIED event is decoded twice, and a DELETED event,
 * whose object is the whole last state of a deleted object (its {@code spec} included), once more.
 * The API server writes a watch event's {@code type} before its {@code object} (the field order of
 * {@code metav1.WatchEvent}), and an object's {@code apiVersion} and {@code kind} before its other
 * fields (a custom resource is a map, which Go's encoder writes in key order; a built-in type is a
 * struct whose type meta comes first). So the class is known before anything else of the object is
 * read, and the rest is bound to it from the parser, once. An event written in another order (a
 * client's or a test's) is read as fabric8 reads it, and so is an object of any other class:
 * fabric8 binds some classes (Tally's aggregates among them) through a deserializer of its own that
 * reads the apiVersion and kind itself.
 *
 * <p>A DELETED event of an input's kind yields an object of that kind that holds its identity alone
 * ({@link InputResource#identityOnly}: apiVersion, kind, namespace, name, uid, resourceVersion and
 * generation), every other field skipped unread: an input object's last state is the one its last
 * ADDED or MODIFIED event carried, which the watch delivered before the DELETED event (a watch
 * delivers one object's events in order; a re-list hands over whole objects). Objects of other
 * kinds, which a user's own informers on the same client may read in full, are read whole.
 *
 * <p>Jackson 2 (fabric8 7.x) and Jackson 3 (fabric8 8.x) name their parsers differently: the
 * reading is written once against {@link Tokens}, and each line's adapter is loaded only on its
 * line.
 */
final class WatchEvents {
  private static final String DELETED = "DELETED";

  /** The no-argument constructors of registered input classes, found once. */
  private static final Map<Class<?>, Constructor<?>> CONSTRUCTORS = new ConcurrentHashMap<>();

  private WatchEvents() {}

  /** A JSON parser as the reading uses it, the same on Jackson 2 and 3. */
  interface Tokens {
    /** Moves to the next token and says what it is. */
    Token next() throws IOException;

    /** The name of the field at the cursor. */
    String name() throws IOException;

    /** The scalar at the cursor, as text. */
    String text() throws IOException;

    /** Skips the value at the cursor: an object or array is read to its end, nothing is kept. */
    void skip() throws IOException;

    /**
     * Binds the rest of the object at the cursor, which is at one of its fields, to {@code type}.
     */
    <T> T bindRest(Class<T> type) throws IOException;

    /** Reads the object that begins at the cursor as fabric8 does: a tree, then the class. */
    @Nullable Object readWhole() throws IOException;

    /**
     * Reads the rest of the object at the cursor (at one of its fields, or at its end) as fabric8
     * does, with {@code apiVersion} and {@code kind}, already read, put back in front.
     */
    @Nullable Object readRest(@Nullable String apiVersion, @Nullable String kind)
        throws IOException;
  }

  /** The tokens the reading tells apart. */
  enum Token {
    START_OBJECT,
    END_OBJECT,
    FIELD,
    START_ARRAY,
    END_ARRAY,
    SCALAR,
    NULL,
    END
  }

  /**
   * Reads one watch event, the cursor at its first token.
   *
   * @param registered the class fabric8 binds an object of (apiVersion, kind) to, or null
   */
  static WatchEvent read(
      Tokens tokens,
      BiFunction<String, String, @Nullable Class<? extends KubernetesResource>> registered)
      throws IOException {
    if (tokens.next() != Token.START_OBJECT) {
      throw new IllegalArgumentException("a watch event is a JSON object");
    }
    String type = null;
    Object object = null;
    while (tokens.next() == Token.FIELD) {
      String field = tokens.name();
      Token value = tokens.next();
      if (field.equals("type") && value == Token.SCALAR) {
        type = tokens.text();
      } else if (field.equals("object") && value == Token.START_OBJECT) {
        object = type == null ? tokens.readWhole() : object(tokens, type, registered);
      } else {
        tokens.skip();
      }
    }
    return new WatchEvent(object, type);
  }

  /** The event's object, the cursor at its start and the event's type known. */
  private static @Nullable Object object(
      Tokens tokens,
      String type,
      BiFunction<String, String, @Nullable Class<? extends KubernetesResource>> registered)
      throws IOException {
    String apiVersion = null;
    String kind = null;
    Token at = tokens.next();
    while (at == Token.FIELD && (apiVersion == null || kind == null)) {
      String field = tokens.name();
      boolean isVersion = field.equals("apiVersion") && apiVersion == null;
      boolean isKind = field.equals("kind") && kind == null;
      if (!isVersion && !isKind) {
        break;
      }
      if (tokens.next() != Token.SCALAR) {
        // not what the API server writes: read the rest as fabric8 does, that field skipped
        tokens.skip();
        tokens.next();
        return tokens.readRest(apiVersion, kind);
      }
      if (isVersion) {
        apiVersion = tokens.text();
      } else {
        kind = tokens.text();
      }
      at = tokens.next();
    }
    Class<? extends KubernetesResource> type0 =
        apiVersion == null || kind == null ? null : registered.apply(apiVersion, kind);
    // an input's class is a bean bound field by field; fabric8's other classes may be bound
    // through its own deserializer, which needs the apiVersion and kind read already
    if (type0 == null || at != Token.FIELD || !InputResource.class.isAssignableFrom(type0)) {
      return tokens.readRest(apiVersion, kind);
    }
    return type.equals(DELETED) ? identity(tokens, type0) : tokens.bindRest(type0);
  }

  /**
   * The identity of the object whose fields are at the cursor (after its apiVersion and kind),
   * every other field skipped.
   */
  private static HasMetadata identity(Tokens tokens, Class<? extends KubernetesResource> type)
      throws IOException {
    ObjectMeta meta = new ObjectMeta();
    for (Token at = Token.FIELD; at == Token.FIELD; at = tokens.next()) {
      String field = tokens.name();
      Token value = tokens.next();
      if (field.equals("metadata") && value == Token.START_OBJECT) {
        readIdentity(tokens, meta);
      } else {
        tokens.skip();
      }
    }
    HasMetadata out = instance(type);
    out.setMetadata(InputResource.identityOnly(meta));
    return out;
  }

  /** Reads the identity fields of the metadata at the cursor into {@code meta}. */
  private static void readIdentity(Tokens tokens, ObjectMeta meta) throws IOException {
    while (tokens.next() == Token.FIELD) {
      String field = tokens.name();
      if (tokens.next() != Token.SCALAR) {
        tokens.skip();
        continue;
      }
      switch (field) {
        case "name" -> meta.setName(tokens.text());
        case "namespace" -> meta.setNamespace(tokens.text());
        case "uid" -> meta.setUid(tokens.text());
        case "resourceVersion" -> meta.setResourceVersion(tokens.text());
        case "generation" -> meta.setGeneration(Long.parseLong(tokens.text()));
        default -> {
          // a scalar not part of the identity
        }
      }
    }
  }

  private static HasMetadata instance(Class<? extends KubernetesResource> type) {
    try {
      Object made = CONSTRUCTORS.computeIfAbsent(type, WatchEvents::constructor).newInstance();
      return (HasMetadata) made;
    } catch (InstantiationException | IllegalAccessException | InvocationTargetException e) {
      throw new IllegalStateException("cannot make an empty " + type.getName(), e);
    }
  }

  private static Constructor<?> constructor(Class<?> type) {
    try {
      Constructor<?> c = type.getDeclaredConstructor();
      c.setAccessible(true);
      return c;
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(type.getName() + " has no constructor without arguments", e);
    }
  }

  /** Registers the reading on a serialization's mapper, for the serialization made from it. */
  static BiFunction<String, String, @Nullable Class<? extends KubernetesResource>> registry(
      Supplier<@Nullable KubernetesSerialization> made) {
    return (apiVersion, kind) -> {
      KubernetesSerialization s = made.get();
      return s == null ? null : s.getRegisteredKubernetesResource(apiVersion, kind);
    };
  }

  /** fabric8 8.x: the reading as a Jackson 3 deserializer. Loaded only on that line. */
  static final class Jackson3 extends tools.jackson.databind.ValueDeserializer<WatchEvent> {
    private final Supplier<@Nullable KubernetesSerialization> made;

    Jackson3(Supplier<@Nullable KubernetesSerialization> made) {
      this.made = made;
    }

    @Override
    public WatchEvent deserialize(
        tools.jackson.core.JsonParser p, tools.jackson.databind.DeserializationContext ctxt) {
      try {
        return read(new Tokens3(p, ctxt), registry(made));
      } catch (IOException e) {
        throw new UncheckedIOException(e); // Jackson 3's parser throws none
      }
    }

    /** The cursor is at the event's first token: {@link #read} begins by moving to it. */
    private static final class Tokens3 implements Tokens {
      private final tools.jackson.core.JsonParser p;
      private final tools.jackson.databind.DeserializationContext ctxt;
      private boolean started;

      Tokens3(tools.jackson.core.JsonParser p, tools.jackson.databind.DeserializationContext ctxt) {
        this.p = p;
        this.ctxt = ctxt;
      }

      @Override
      public Token next() {
        tools.jackson.core.JsonToken t;
        if (!started) {
          started = true;
          t = p.currentToken() != null ? p.currentToken() : p.nextToken();
        } else {
          t = p.nextToken();
        }
        if (t == null) {
          return Token.END;
        }
        // no switch on Jackson's enum: javac would put both lines' switch tables in one class
        if (t == tools.jackson.core.JsonToken.PROPERTY_NAME) {
          return Token.FIELD;
        } else if (t == tools.jackson.core.JsonToken.START_OBJECT) {
          return Token.START_OBJECT;
        } else if (t == tools.jackson.core.JsonToken.END_OBJECT) {
          return Token.END_OBJECT;
        } else if (t == tools.jackson.core.JsonToken.START_ARRAY) {
          return Token.START_ARRAY;
        } else if (t == tools.jackson.core.JsonToken.END_ARRAY) {
          return Token.END_ARRAY;
        }
        return t == tools.jackson.core.JsonToken.VALUE_NULL ? Token.NULL : Token.SCALAR;
      }

      @Override
      public String name() {
        return p.currentName();
      }

      @Override
      public String text() {
        return p.getString();
      }

      @Override
      public void skip() {
        p.skipChildren();
      }

      @Override
      public <T> T bindRest(Class<T> type) {
        return ctxt.readValue(p, type);
      }

      @Override
      public @Nullable Object readWhole() {
        return ctxt.readValue(p, KubernetesResource.class);
      }

      @Override
      public @Nullable Object readRest(@Nullable String apiVersion, @Nullable String kind) {
        tools.jackson.databind.node.ObjectNode node = ctxt.getNodeFactory().objectNode();
        if (apiVersion != null) {
          node.put("apiVersion", apiVersion);
        }
        if (kind != null) {
          node.put("kind", kind);
        }
        while (p.currentToken() == tools.jackson.core.JsonToken.PROPERTY_NAME) {
          String field = p.currentName();
          p.nextToken();
          node.set(field, ctxt.readTree(p));
          p.nextToken();
        }
        return ctxt.readTreeAsValue(node, KubernetesResource.class);
      }
    }
  }

  /** fabric8 7.x: the reading as a Jackson 2 deserializer. Loaded only on that line. */
  static final class Jackson2 extends com.fasterxml.jackson.databind.JsonDeserializer<WatchEvent> {
    private final Supplier<@Nullable KubernetesSerialization> made;

    Jackson2(Supplier<@Nullable KubernetesSerialization> made) {
      this.made = made;
    }

    @Override
    public WatchEvent deserialize(
        com.fasterxml.jackson.core.JsonParser p,
        com.fasterxml.jackson.databind.DeserializationContext ctxt)
        throws IOException {
      return read(new Tokens2(p, ctxt), registry(made));
    }

    /** As {@link Jackson3}'s. */
    private static final class Tokens2 implements Tokens {
      private final com.fasterxml.jackson.core.JsonParser p;
      private final com.fasterxml.jackson.databind.DeserializationContext ctxt;
      private boolean started;

      Tokens2(
          com.fasterxml.jackson.core.JsonParser p,
          com.fasterxml.jackson.databind.DeserializationContext ctxt) {
        this.p = p;
        this.ctxt = ctxt;
      }

      @Override
      public Token next() throws IOException {
        com.fasterxml.jackson.core.JsonToken t;
        if (!started) {
          started = true;
          t = p.currentToken() != null ? p.currentToken() : p.nextToken();
        } else {
          t = p.nextToken();
        }
        if (t == null) {
          return Token.END;
        }
        if (t == com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
          return Token.FIELD;
        } else if (t == com.fasterxml.jackson.core.JsonToken.START_OBJECT) {
          return Token.START_OBJECT;
        } else if (t == com.fasterxml.jackson.core.JsonToken.END_OBJECT) {
          return Token.END_OBJECT;
        } else if (t == com.fasterxml.jackson.core.JsonToken.START_ARRAY) {
          return Token.START_ARRAY;
        } else if (t == com.fasterxml.jackson.core.JsonToken.END_ARRAY) {
          return Token.END_ARRAY;
        }
        return t == com.fasterxml.jackson.core.JsonToken.VALUE_NULL ? Token.NULL : Token.SCALAR;
      }

      @Override
      public String name() throws IOException {
        return p.currentName();
      }

      @Override
      public String text() throws IOException {
        return p.getText();
      }

      @Override
      public void skip() throws IOException {
        p.skipChildren();
      }

      @Override
      public <T> T bindRest(Class<T> type) throws IOException {
        return ctxt.readValue(p, type);
      }

      @Override
      public @Nullable Object readWhole() throws IOException {
        return ctxt.readValue(p, KubernetesResource.class);
      }

      @Override
      public @Nullable Object readRest(@Nullable String apiVersion, @Nullable String kind)
          throws IOException {
        com.fasterxml.jackson.databind.node.ObjectNode node = ctxt.getNodeFactory().objectNode();
        if (apiVersion != null) {
          node.put("apiVersion", apiVersion);
        }
        if (kind != null) {
          node.put("kind", kind);
        }
        while (p.currentToken() == com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
          String field = p.currentName();
          p.nextToken();
          node.set(field, ctxt.readTree(p));
          p.nextToken();
        }
        return ctxt.readTreeAsValue(node, KubernetesResource.class);
      }
    }
  }
}
