--
-- PostgreSQL database dump
--


-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: switchyard_stem; Type: TEXT SEARCH DICTIONARY; Schema: public; Owner: -
--

CREATE TEXT SEARCH DICTIONARY public.switchyard_stem (
    TEMPLATE = pg_catalog.snowball,
    language = 'english' );


--
-- Name: switchyard_search; Type: TEXT SEARCH CONFIGURATION; Schema: public; Owner: -
--

CREATE TEXT SEARCH CONFIGURATION public.switchyard_search (
    PARSER = pg_catalog."default" );

ALTER TEXT SEARCH CONFIGURATION public.switchyard_search
    ADD MAPPING FOR asciiword WITH public.switchyard_stem;

ALTER TEXT SEARCH CONFIGURATION public.switchyard_search
    ADD MAPPING FOR word WITH public.switchyard_stem;

ALTER TEXT SEARCH CONFIGURATION public.switchyard_search
    ADD MAPPING FOR numword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.switchyard_search
    ADD MAPPING FOR email WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.switchyard_search
    ADD MAPPING FOR url WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.switchyard_search
    ADD MAPPING FOR host WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.switchyard_search
    ADD MAPPING FOR sfloat WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.switchyard_search
    ADD MAPPING FOR version WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.switchyard_search
    ADD MAPPING FOR hword_numpart WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.switchyard_search
    ADD MAPPING FOR hword_part WITH public.switchyard_stem;

ALTER TEXT SEARCH CONFIGURATION public.switchyard_search
    ADD MAPPING FOR hword_asciipart WITH public.switchyard_stem;

ALTER TEXT SEARCH CONFIGURATION public.switchyard_search
    ADD MAPPING FOR numhword WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.switchyard_search
    ADD MAPPING FOR asciihword WITH public.switchyard_stem;

ALTER TEXT SEARCH CONFIGURATION public.switchyard_search
    ADD MAPPING FOR hword WITH public.switchyard_stem;

ALTER TEXT SEARCH CONFIGURATION public.switchyard_search
    ADD MAPPING FOR url_path WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.switchyard_search
    ADD MAPPING FOR file WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.switchyard_search
    ADD MAPPING FOR "float" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.switchyard_search
    ADD MAPPING FOR "int" WITH simple;

ALTER TEXT SEARCH CONFIGURATION public.switchyard_search
    ADD MAPPING FOR uint WITH simple;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: claims; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.claims (
    key text NOT NULL COLLATE pg_catalog."C",
    session text NOT NULL COLLATE pg_catalog."C",
    payload_sha256 text NOT NULL,
    outcome text NOT NULL
);


--
-- Name: events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.events (
    session text NOT NULL COLLATE pg_catalog."C",
    seq bigint NOT NULL,
    id text NOT NULL COLLATE pg_catalog."C",
    run text COLLATE pg_catalog."C",
    kind text NOT NULL,
    at_ms bigint NOT NULL,
    body text NOT NULL,
    prev_hash text NOT NULL,
    hash text NOT NULL
);


--
-- Name: heads; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.heads (
    session text NOT NULL COLLATE pg_catalog."C",
    seq bigint NOT NULL,
    hash text NOT NULL
);


--
-- Name: nodes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.nodes (
    id text NOT NULL COLLATE pg_catalog."C",
    run text NOT NULL COLLATE pg_catalog."C",
    session text NOT NULL COLLATE pg_catalog."C",
    parent text COLLATE pg_catalog."C",
    kind text NOT NULL,
    cause text NOT NULL,
    step text NOT NULL,
    status text NOT NULL,
    state text NOT NULL,
    child_count bigint NOT NULL,
    created_seq bigint NOT NULL,
    created_at_ms bigint NOT NULL
);


--
-- Name: runs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.runs (
    id text NOT NULL COLLATE pg_catalog."C",
    session text NOT NULL COLLATE pg_catalog."C",
    workflow_id text NOT NULL,
    workflow_hash text NOT NULL,
    source text NOT NULL,
    control text NOT NULL,
    tip text NOT NULL COLLATE pg_catalog."C",
    status text NOT NULL,
    node_count bigint NOT NULL,
    created_at_ms bigint NOT NULL,
    updated_at_ms bigint NOT NULL
);


--
-- Name: sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sessions (
    id text NOT NULL COLLATE pg_catalog."C",
    goal text NOT NULL,
    title text NOT NULL,
    workflow_id text COLLATE pg_catalog."C",
    run text COLLATE pg_catalog."C",
    status text,
    workspace text,
    git_branch text,
    git_head text,
    created_at_ms bigint NOT NULL,
    updated_at_ms bigint NOT NULL,
    last_seq bigint NOT NULL
);


--
-- Name: switchyard_schema; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.switchyard_schema (
    singleton integer NOT NULL,
    version bigint NOT NULL,
    CONSTRAINT switchyard_schema_singleton_check CHECK ((singleton = 1))
);


--
-- Name: text_words; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.text_words (
    word text NOT NULL COLLATE pg_catalog."C",
    text bigint NOT NULL
);


--
-- Name: texts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.texts (
    id bigint NOT NULL,
    session text NOT NULL COLLATE pg_catalog."C",
    node text COLLATE pg_catalog."C",
    step text NOT NULL,
    seq bigint NOT NULL,
    kind text NOT NULL,
    body text NOT NULL,
    words tsvector GENERATED ALWAYS AS (to_tsvector('public.switchyard_search'::regconfig, body)) STORED
);


--
-- Name: texts_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.texts_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: texts_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.texts_id_seq OWNED BY public.texts.id;


--
-- Name: tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.tokens (
    nonce text NOT NULL COLLATE pg_catalog."C",
    kind text NOT NULL,
    session text NOT NULL COLLATE pg_catalog."C",
    run text NOT NULL COLLATE pg_catalog."C",
    node text NOT NULL COLLATE pg_catalog."C",
    attempt text NOT NULL COLLATE pg_catalog."C"
);


--
-- Name: workflows; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.workflows (
    hash text NOT NULL COLLATE pg_catalog."C",
    ir text NOT NULL
);


--
-- Name: texts id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.texts ALTER COLUMN id SET DEFAULT nextval('public.texts_id_seq'::regclass);


--
-- Data for Name: claims; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.claims VALUES ('advance:node_agrclvvewmkyp2r4inekgzqae4:attempt_3bga4dyjhwq5miarqripnl4gpm', 'sess_agrclvvewpyhre4hsy4thdrboa', '682b343e588dc9a30afba4d19f396a3234af704ab47e51ca99435d53b528c469', '{"fields":{"notes":"f1d6da82e2e5a521b79ddfc9449d4a0ff76c274c35ce75797271b977ab1fd055"},"node":"node_agrclvvgzjfg5j7mpv3ze6t6sq"}');
INSERT INTO public.claims VALUES ('gate:node_agrclvvgzjfg5j7mpv3ze6t6sq', 'sess_agrclvvewpyhre4hsy4thdrboa', '98f75781da730966b9e7f7ade1b7804169d47564cdef9baed1422065bab5da30', '{"fields":{"decision":"9d13b1bce40a105f17fefd9e747a8acda007392d70c2cdcb35e8227b1e9195a7","reason":"928c1f12f5ce4c31ccb7d093694f0316ad81353fbbfee507672a38eb8975269d"},"node":"node_agrclvvjgunjabimkeiducclca"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvvjgunjabimkeiducclca:attempt_qyialov4c44xizn225rp7btwjy', 'sess_agrclvvewpyhre4hsy4thdrboa', '3e417db12e2f1c3de027dd6cacc827f1cb8dea191864f75e7062821c2f78f460', '{"fields":{"notes":"f823a5c8ad1d5d12aa2ec7d4cc16f5985a7844bfdb4eb3eb7bfbcf16ba9b9a83"},"node":"node_agrclvvlpfhzid5rsa3jptpqve"}');
INSERT INTO public.claims VALUES ('gate:node_agrclvvlpfhzid5rsa3jptpqve', 'sess_agrclvvewpyhre4hsy4thdrboa', 'b9b914cefcfa1b5f39c35c9b76417a9f3bf890581c54d81300fadf3f3efb150c', '{"fields":{"decision":"6ef4cbc4f3f0a1af3187e96c208a6b7737cfa1cdfe40d84822a94d8d5eea0ac3"},"node":"node_agrclvvns5jnut7frj7572lldm"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvvns5jnut7frj7572lldm:attempt_6necjwvyrzq2qafyjgndpq6voy', 'sess_agrclvvewpyhre4hsy4thdrboa', 'acac8e8a75d7b027d63694a88051e72f964e9cac6bc64aee2f267e1781b18a33', '{"fields":{},"node":"node_agrclvvpvmegh3oxttoz7v7efm"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvvpvmegh3oxttoz7v7efm:attempt_au6xbqpkoddbixucqjbrxljx54', 'sess_agrclvvewpyhre4hsy4thdrboa', '5bb9e295f3984092d99883ca1322305e33d0082f1dc2b93daf031c27bdf3bec8', '{"fields":{"notes":"dc97d9eaf1ef79bdd03407517074e89c1acb1233cbf1d51d7d3d5549b5806bb0"},"node":"node_agrclvvrxglo6yyxchcq5kb47m"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvvrxglo6yyxchcq5kb47m:attempt_xfrkzpdfrgnzu7fcngzwlwmany', 'sess_agrclvvewpyhre4hsy4thdrboa', '3ad326a9bc3b9731c67d8ac891c9676f17e0f7e3dc869c495947b451c8764efa', '{"fields":{"choice":"97959247360c5f0b8faf336aea5eba322af7be295958302fdb8a3fe8c6eb8ab8","notes":"054d787968d8bb86aad1433c212920d1290a05b0e729bc3c1d143fb38489575c"},"node":"node_agrclvvtz2sgn56wmdopjpnxae"}');
INSERT INTO public.claims VALUES ('gate:node_agrclvvtz2sgn56wmdopjpnxae', 'sess_agrclvvewpyhre4hsy4thdrboa', 'b9b914cefcfa1b5f39c35c9b76417a9f3bf890581c54d81300fadf3f3efb150c', '{"fields":{"decision":"6ef4cbc4f3f0a1af3187e96c208a6b7737cfa1cdfe40d84822a94d8d5eea0ac3"},"node":"node_agrclvvxtofjtijw7pwhvgthbq"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvvzqm3nszvjrtirnsnpge:attempt_3qv54nfqh35qzlbywutfne6l5y', 'sess_agrclvvzqo2xt4bca5px5f42ze', '86f6c48eb06f6e11d19bfe39076a4b6687b684b76b479d0c510eb93be1a933f2', '{"fields":{"notes":"4be1501836564084b042130124aa3217d88daafe09c42b7c44133e88c1605e1c"},"node":"node_agrclvv3mxq3lyr5ey7dwb53py"}');
INSERT INTO public.claims VALUES ('gate:node_agrclvv3mxq3lyr5ey7dwb53py', 'sess_agrclvvzqo2xt4bca5px5f42ze', '81d474f978192a6907a727eda677a09441a0da4e0b908e1604500428493450f8', '{"fields":{"decision":"9d13b1bce40a105f17fefd9e747a8acda007392d70c2cdcb35e8227b1e9195a7","reason":"f8041da4f322a450134175429f0ed7c78d0fa0f71da35a4391821e36bf384871"},"node":"node_agrclvv5ctnxm7tv3wexqmh3t4"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvv5ctnxm7tv3wexqmh3t4:attempt_x3gqixllwchpnz35l24rvxe2ty', 'sess_agrclvvzqo2xt4bca5px5f42ze', '3e3ca2b1a27a58c31b6b61052e4f12fb11e77db17eb90246b96dd7de524b69df', '{"fields":{"notes":"5e450fa0aab0a88bb9593af9950b99ddda608889a59c00a9ac97b6b8a29d7b60"},"node":"node_agrclvv7dsksduehid5hhruoua"}');
INSERT INTO public.claims VALUES ('gate:node_agrclvv7dsksduehid5hhruoua', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'c5c82242820445796f598107253430928c75557061c55c8762ee0601da97756c', '{"fields":{"decision":"9d13b1bce40a105f17fefd9e747a8acda007392d70c2cdcb35e8227b1e9195a7","reason":"099770c552885bc66979feceb373d41607bd5d28efb205a5e753dc60b300b0ad"},"node":"node_agrclvwbcdgwktct2zng2kq4hu"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvwbcdgwktct2zng2kq4hu:attempt_hatmcnzgokptsxn5c6eoaqcgsq', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'cfa3b31869ff21a6c871f4dafc4427a7e87512c75b81578a7b8217991299fc78', '{"fields":{"notes":"d83a08451270ab55a5284ef9b64a02bd3c7bb640372ea5b79ecd40724fe710bd"},"node":"node_agrclvwdmx5jiqvm3lse62w4j4"}');
INSERT INTO public.claims VALUES ('gate:node_agrclvwdmx5jiqvm3lse62w4j4', 'sess_agrclvvzqo2xt4bca5px5f42ze', '3da4ddf36bd9788f8d323a12869356e56c53e6e1078507c375ad6c066648ea61', '{"fields":{"decision":"9d13b1bce40a105f17fefd9e747a8acda007392d70c2cdcb35e8227b1e9195a7","reason":"ce89e1f4335ec27522fd1d50a11dc3e06b2c5e8061cc77c21f3b4667fa5047e5"},"node":"node_agrclvwfrh4vaieaoilargbqmq"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvwfrh4vaieaoilargbqmq:attempt_7eo7a4vyglp43dshz3u3lxdg64', 'sess_agrclvvzqo2xt4bca5px5f42ze', '4d8d7affde6403e38e5340859bb9cbc1d3bdc7097acb3038180eabc00f76b703', '{"fields":{"notes":"2da371ca730c95d56ddec7d379c25e3806223f779dbf69e4fe4550d45f6e371b"},"node":"node_agrclvwhrewb4cptrg3ljy7cbe"}');
INSERT INTO public.claims VALUES ('gate:node_agrclvwhrewb4cptrg3ljy7cbe', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'c33e5e11ff7003b9a5ac01b739ebe719a02a885ddce3a9aa441d1029ef01242f', '{"fields":{"decision":"9d13b1bce40a105f17fefd9e747a8acda007392d70c2cdcb35e8227b1e9195a7","reason":"02614c5f7c346887068918f3b420c842f728f052af2d55bcdc2eb86974898183"},"node":"node_agrclvwjraayu6lvntvt3qfxzi"}');
INSERT INTO public.claims VALUES ('decide:node_agrclvwjraayu6lvntvt3qfxzi', 'sess_agrclvvzqo2xt4bca5px5f42ze', '69f1b436c6ab69255dfd114cc4a228e3168d86d21727469a2df020382cdc3760', '{"fields":{"note":"aee7357ed2105776647e69e6b3648d21958df885ba68e2de1a912f626a1767ba","option":"db518fe76ded1897a45406e9d31b34049ae7946321e6dbb713b3a45df86e7ef3"},"node":"node_agrclvwlo5su2wkmz4vdkpnno4"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvwlo5su2wkmz4vdkpnno4:attempt_o7jmltod4yefc54l7muh56y7xq', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'f73740a3dd911340c8a04951c8340b9640a2fc2f7d3c7d6b41e3333e85f67c3c', '{"fields":{"notes":"a4a5bb5aa94c5047d044b7b55faad9ecc6ff5c0c5b13414cd6e8f629414b0129"},"node":"node_agrclvwnuuicf6ptrtbx22ncta"}');
INSERT INTO public.claims VALUES ('gate:node_agrclvwnuuicf6ptrtbx22ncta', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'b9b914cefcfa1b5f39c35c9b76417a9f3bf890581c54d81300fadf3f3efb150c', '{"fields":{"decision":"6ef4cbc4f3f0a1af3187e96c208a6b7737cfa1cdfe40d84822a94d8d5eea0ac3"},"node":"node_agrclvwpqw7yokcrmdfi35lx2u"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvwpqw7yokcrmdfi35lx2u:attempt_77s4e53ngdyhx6xyodzrsy7pee', 'sess_agrclvvzqo2xt4bca5px5f42ze', '7c8b4e9ce685737cda27159d43696d14cd07bffa9c31ccd9847ffeaa46d488d7', '{"fields":{"notes":"c8f7fc5eb85df802698c4b325c47f3dccba5fd7129f265bffbbd7e8734dd5d84"},"node":"node_agrclvwrpsazh3nm72ju2l27gu"}');
INSERT INTO public.claims VALUES ('checkpoint:node_agrclvwrpsazh3nm72ju2l27gu:attempt_oasuaxu2xknwssfmqclqv4mjvq', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'c03e8a336429c26e51086e88099f55fce490a1c6be4fe038e8ee782b6aff4b41', '{"fields":{"notes":"c03e8a336429c26e51086e88099f55fce490a1c6be4fe038e8ee782b6aff4b41"},"node":"node_agrclvwrpsazh3nm72ju2l27gu"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvwpqw7yokcrmdfi35lx2u:attempt_agrclvwwpkp45gkytdj54d6w3e', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'cfa19069d37cfd966623677c3bdac53761bdc9228a72c2cd0a405c0b2ad1b931', '{"fields":{"notes":"eee468f9952ea59a11a94529eb7eab9329039c21138af8e362707d66c158f1cd"},"node":"node_agrclvwyfb6vhudru6vuva3x7u"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvw76n3nxanbl74mfjk7c4:attempt_6ivhezlngwyrjybgvhmwnwpigu', 'sess_agrclvw76mzffnrb7mbjxodyl4', 'c8a7b6ec58b09343503a28f1ba47aa04d962d78e73389c2f634680ff9726ab2a', '{"fields":{"notes":"483387b5d2cefc276fe6b7cf879753c1b711e13163ebcf3757f8755fe673e7be"},"node":"node_agrclvxccm6xxjemimvsal352y"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvxccm6xxjemimvsal352y:attempt_ryb6xd6l5kiwx56xxlkawzawqm', 'sess_agrclvw76mzffnrb7mbjxodyl4', 'c8a7b6ec58b09343503a28f1ba47aa04d962d78e73389c2f634680ff9726ab2a', '{"fields":{"notes":"483387b5d2cefc276fe6b7cf879753c1b711e13163ebcf3757f8755fe673e7be"},"node":"node_agrclvxegr6e5roq3ct474guvm"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvxegr6e5roq3ct474guvm:attempt_jdantwi55fmfffvlh2byv4owgu', 'sess_agrclvw76mzffnrb7mbjxodyl4', 'c8a7b6ec58b09343503a28f1ba47aa04d962d78e73389c2f634680ff9726ab2a', '{"fields":{"notes":"483387b5d2cefc276fe6b7cf879753c1b711e13163ebcf3757f8755fe673e7be"},"node":"node_agrclvxglmxa3ouogm47dbqv6m"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvxixf5w3iacpr2xc4vhqa:attempt_xhxjw3msglhzd4b3m7md6aoqvy', 'sess_agrclvxixgm232rhxtvaivabha', '161ac6bf2eaac2c3406805791aa0cbbbe19f17904d1ab8fc97f5d19af14a667c', '{"fields":{"artifacts":"a87369a27f50c75de30ebf84da0464e5d8f1844772b663f9f3a040ff947ae36b","context":"59d795cf513a7e4eab1cf38cfff245e7a0dc4d0f50abd8a95fbb01e36ba45dfa","notes":"44568adaacd49cd909c6d0e056f7a103d42445bf5418a884193b82f8e77717d8"},"node":"node_agrclvxk7zncotubc36gkcglgm"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvxk7zncotubc36gkcglgm:attempt_5gbewzgdm7fh3dwzhk7smcroyq', 'sess_agrclvxixgm232rhxtvaivabha', 'e60ee73afe8134de427b831c5a65e4d3556e39a3f3bb735bb4f521d7be43b635', '{"fields":{"artifacts":"7d64068ceffce4a164f4c09ce14582c26aefcd1b0be5103fbc6bf06d46941cfb","context":"1fd96f991ca0ea2c5f62dc6ba844fb1ebd28750e04d7a29a8f630ff8d67b9eed","notes":"569fecd1e5e15ff038cbc5f0d1a370cc328c1c5417ed8a8b17d24064ea77dc3d"},"node":"node_agrclvxno25m2djkmnqawqzm54"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvxno25m2djkmnqawqzm54:attempt_zqgvksy24ajw5drkenrd4o6nzi', 'sess_agrclvxixgm232rhxtvaivabha', '299f34adf690d55c2af03b68bc7917cbe1015394beaf5b070a3258dfc4a40b37', '{"fields":{"artifacts":"9f95611a2cae6e00c34223f2554c6fe8533bcf747f22868049ead0c933522dae","context":"592bf07eeb8e5647414e70316d8e5dd2638a6ce7216df4f54e9cd9f44ead32e1","notes":"1dbf6f488f596abe5e641ae63c0a0444a3d2137468c825970296721e952a9c9e"},"node":"node_agrclvxpu7nsftwt4lekuwuoci"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvxpu7nsftwt4lekuwuoci:attempt_owizathlnvgc64zm7scgsrhrsa', 'sess_agrclvxixgm232rhxtvaivabha', '327f8c6d6183c8ec2899a817b60e60173be51123cb4f2f2725aea8ebf429d18e', '{"fields":{"artifacts":"1bd91d8f928c2979e32502cad4291a16852edd3abc1d9a64ca3d30823fa961d7","notes":"7868bd1282fde8c5d2b669ad745a69dcf2a19f0cac6df891a217b6c30132a4ea"},"node":"node_agrclvxr3utnzqqseevqwoqcxe"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvxr3utnzqqseevqwoqcxe:attempt_wa7l5cja27kbaywhddxwqa7cz4', 'sess_agrclvxixgm232rhxtvaivabha', 'dbd864b588cc9313ab81f954a740acb261c7c6bb4121f30d620ea22d4e51cfa3', '{"fields":{"notes":"7f85c7df4bde0ccfb44b7500d6207d0052330c8f1985edca89a9f24529350588"},"node":"node_agrclvxt45jd3en2dnhdte23em"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvxvyjigsntdgw6wge45l4:attempt_5uddyqfyefhe44dbbdnlfxs4au', 'sess_agrclvxvykw3azrtr4la7q5m2m', '7a22419b26568cd27e3d5f820cfa28ed4fe5d71241ad62f270ace5ca069dc823', '{"fields":{"artifacts":"8f83c7c23d9f0fc04862b8764f4df6f7a29b2b6bdb27c0fd498ebea886d479fe"},"node":"node_agrclvxx535diuuyh6lzo3bpaa"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvxx535diuuyh6lzo3bpaa:attempt_vbpdia4i5ohcxfk2wrvq4mnhny', 'sess_agrclvxvykw3azrtr4la7q5m2m', '626838e8f894c36f2bdb6c68e5d833de27656e923508b923900f5a3370f67c59', '{"fields":{"artifacts":"e5be6f83183f542da0c6cf37c9653e766eda4792d9e73beb4515155c214b49c9"},"node":"node_agrclvx2e6azhmubv7pu6v2naa"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvx2e6azhmubv7pu6v2naa:attempt_qy7sunutbw3c7vetahuhtlmfem', 'sess_agrclvxvykw3azrtr4la7q5m2m', 'acac8e8a75d7b027d63694a88051e72f964e9cac6bc64aee2f267e1781b18a33', '{"fields":{},"node":"node_agrclvx4i4xh7c7qx3uddsimce"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvx6obi462x2xhwzpcczmy:attempt_ucujumcp5ggvf2won5na5prvxm', 'sess_agrclvx6nthmii4fsurgyaoxba', '2194894f3a2e1e4139549f08af5b01641718894698cce257851d46f1a440cc4f', '{"fields":{"artifacts":"bae22434d4d0ee6006c5b9375ef9612b91d88c4683fbd49733ea1baf5e8a28b1"},"node":"node_agrclvya4ozmi7pkgzlejs5zeq"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvyeebhtr4gwj3z5j3hzyq:attempt_d5d32voaxvwyqfqfioroif2kry', 'sess_agrclvyeebf2i4jmivk2taghju', '7f66cce3e28ac6e17773bc84141c43175a87eb953a91507c2523d1f108fd894a', '{"fields":{"artifacts":"574698d88a118b9d8976b093c4295c0c002076828380a2e4fb14cd6a108656e5","notes":"dc4de1a27966dacafa8ad6573bf8d1613d49feece06b315c424541e0f22805bd"},"node":"node_agrclvyfw7xh4zqcimwxh4uq3q"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvyfw7xh4zqcimwxh4uq3q:attempt_mm4gohaugixhuiizmzyw7zoj5a', 'sess_agrclvyeebf2i4jmivk2taghju', '9bbcb3cc819c02224512fb89c7023fd5388ad54e20fb623a620fb76989d5b84a', '{"fields":{"artifacts":"9d0f2143c61cfbb6c0cf0425ce8b447811a32d48ec37333ba8b3700218631b36","context":"a96b7ab3ef3565bc3c1be3858a672910305df0f49626ce5c6acbf59a35d484a6","notes":"8a8316db3792850aff29a2dbabe5dbdc9488f0a5b0467e2c83ecdc7ea874bf8b"},"node":"node_agrclvygfcdeiecuwprcckczq4"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvygfcdeiecuwprcckczq4:attempt_dve5hj6wu5m764voqif635dr5q', 'sess_agrclvyeebf2i4jmivk2taghju', '9a2b660d098c92f06fd790d1a841cec812879cee62d3e09af431775febfd3b68', '{"fields":{"notes":"4f3b7b07335d18d75568cc8c1a19d9b346033dba7533a2dbf2d419b4e7fb6dcf"},"node":"node_agrclvygq7dlr2l2uwlrcdhoye"}');
INSERT INTO public.claims VALUES ('advance:node_agrclvygq7dlr2l2uwlrcdhoye:attempt_6y5mn7sqwovzdhmgfpgqqoq4iu', 'sess_agrclvyeebf2i4jmivk2taghju', 'e8acdd6d35ac5c7ddb893f7ced51af978d0840f168d9329f05131f86ca7ec4f5', '{"fields":{"artifacts":"e47825848a28eea8508eea7f00ad78ed419c5e21f2271b6507da5be0f5b35560","notes":"77fe77d03b5ff3de0ba4fe6a7c561dbb8d7c162a3ffc0666b8947d52237d2219"},"node":"node_agrclvyg5e7biikseaa52pzb3y"}');


--
-- Data for Name: events; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.events VALUES ('sess_agrclvvewpyhre4hsy4thdrboa', 1, 'evt_agrclvve2qgbpzbbxhi52zfu4y', 'run_agrclvvewo7uiu2vqci3oioame', 'session_created', 1795931153620, '{"at_ms":1795931153620,"id":"evt_agrclvve2qgbpzbbxhi52zfu4y","kind":{"git_branch":"main","git_head":"ab62eb9bb95f59009211ff398c29c2643629c972","goal":"Add a --verbose flag","title":"Add a --verbose flag","type":"session_created","workspace":"/tmp/.tmp7lKasv"},"prev_hash":"0000000000000000000000000000000000000000000000000000000000000000","run":"run_agrclvvewo7uiu2vqci3oioame","seq":1,"session":"sess_agrclvvewpyhre4hsy4thdrboa","v":1}', '0000000000000000000000000000000000000000000000000000000000000000', 'b03b1ba69752862a52e70284cab0996de7f592c46af8d215e7398f5fd3084e41');
INSERT INTO public.events VALUES ('sess_agrclvvewpyhre4hsy4thdrboa', 2, 'evt_agrclvve2rwtlspcmuabdbxqz4', 'run_agrclvvewo7uiu2vqci3oioame', 'run_started', 1795931153620, '{"at_ms":1795931153620,"id":"evt_agrclvve2rwtlspcmuabdbxqz4","kind":{"source":"builtin:dev-cycle","type":"run_started","workflow_hash":"sha256:4fe5d394cc07011750b53a8da331020b7cedd7d1de28a9508815a112b4795051","workflow_id":"dev-cycle"},"prev_hash":"b03b1ba69752862a52e70284cab0996de7f592c46af8d215e7398f5fd3084e41","run":"run_agrclvvewo7uiu2vqci3oioame","seq":2,"session":"sess_agrclvvewpyhre4hsy4thdrboa","v":1}', 'b03b1ba69752862a52e70284cab0996de7f592c46af8d215e7398f5fd3084e41', '4ec5677d9107df5157df829c7c62862235feecb14e82510dc56c95d57d91ce2e');
INSERT INTO public.events VALUES ('sess_agrclvvewpyhre4hsy4thdrboa', 3, 'evt_agrclvve2r3g47fdrzaoiymrcy', 'run_agrclvvewo7uiu2vqci3oioame', 'node_created', 1795931153620, '{"at_ms":1795931153620,"id":"evt_agrclvve2r3g47fdrzaoiymrcy","kind":{"cause":"start","kind":"start","node":"node_agrclvvewmkyp2r4inekgzqae4","parent":null,"state":{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"plan"},"status":"active","step":"plan","type":"node_created"},"prev_hash":"4ec5677d9107df5157df829c7c62862235feecb14e82510dc56c95d57d91ce2e","run":"run_agrclvvewo7uiu2vqci3oioame","seq":3,"session":"sess_agrclvvewpyhre4hsy4thdrboa","v":1}', '4ec5677d9107df5157df829c7c62862235feecb14e82510dc56c95d57d91ce2e', 'c97fd78f79ff10c337e92441cc748db1dbb6995f91b967ce1c41f8d3519bb38b');
INSERT INTO public.events VALUES ('sess_agrclvvewpyhre4hsy4thdrboa', 4, 'evt_agrclvvgzlp2eejw5wzwa3yrli', 'run_agrclvvewo7uiu2vqci3oioame', 'node_created', 1795931154122, '{"at_ms":1795931154122,"id":"evt_agrclvvgzlp2eejw5wzwa3yrli","kind":{"cause":"advance","kind":"gate","node":"node_agrclvvgzjfg5j7mpv3ze6t6sq","parent":"node_agrclvvewmkyp2r4inekgzqae4","state":{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"kind":"waiting_gate","submission":{"choice":null}},"rejection":null,"step":"plan"},"status":"waiting_gate","step":"plan","type":"node_created"},"prev_hash":"c97fd78f79ff10c337e92441cc748db1dbb6995f91b967ce1c41f8d3519bb38b","run":"run_agrclvvewo7uiu2vqci3oioame","seq":4,"session":"sess_agrclvvewpyhre4hsy4thdrboa","v":1}', 'c97fd78f79ff10c337e92441cc748db1dbb6995f91b967ce1c41f8d3519bb38b', '9ed44c559a68c09383851d5023897a25fa792ffee11b28c0f077afd836a2f8f2');
INSERT INTO public.events VALUES ('sess_agrclvvewpyhre4hsy4thdrboa', 5, 'evt_agrclvvgzinj545lzbqvzgl74a', 'run_agrclvvewo7uiu2vqci3oioame', 'advance_recorded', 1795931154122, '{"at_ms":1795931154122,"id":"evt_agrclvvgzinj545lzbqvzgl74a","kind":{"artifacts":null,"attempt":"attempt_3bga4dyjhwq5miarqripnl4gpm","choice":null,"context_delta":null,"edge_label":null,"from":"node_agrclvvewmkyp2r4inekgzqae4","notes":"Plan: parse the flag, thread it to the logger.","to":"node_agrclvvgzjfg5j7mpv3ze6t6sq","type":"advance_recorded"},"prev_hash":"9ed44c559a68c09383851d5023897a25fa792ffee11b28c0f077afd836a2f8f2","run":"run_agrclvvewo7uiu2vqci3oioame","seq":5,"session":"sess_agrclvvewpyhre4hsy4thdrboa","v":1}', '9ed44c559a68c09383851d5023897a25fa792ffee11b28c0f077afd836a2f8f2', '520906953e7975231684136eaf7fb9499c839cd059fc4f4707327bd318c160a3');
INSERT INTO public.events VALUES ('sess_agrclvvewpyhre4hsy4thdrboa', 6, 'evt_agrclvvjgx3sdf2m6ziqsabvny', 'run_agrclvvewo7uiu2vqci3oioame', 'node_created', 1795931154741, '{"at_ms":1795931154741,"id":"evt_agrclvvjgx3sdf2m6ziqsabvny","kind":{"cause":"advance","kind":"decision","node":"node_agrclvvjgunjabimkeiducclca","parent":"node_agrclvvgzjfg5j7mpv3ze6t6sq","state":{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":1,"steps_completed":0,"traversals":{}},"phase":{"kind":"pending"},"rejection":"The plan has no tests","step":"plan"},"status":"active","step":"plan","type":"node_created"},"prev_hash":"520906953e7975231684136eaf7fb9499c839cd059fc4f4707327bd318c160a3","run":"run_agrclvvewo7uiu2vqci3oioame","seq":6,"session":"sess_agrclvvewpyhre4hsy4thdrboa","v":1}', '520906953e7975231684136eaf7fb9499c839cd059fc4f4707327bd318c160a3', 'db228c4c7cc1161e4e22416e92f345c2bef55eb4e215b930369bc59b74139114');
INSERT INTO public.events VALUES ('sess_agrclvvewpyhre4hsy4thdrboa', 7, 'evt_agrclvvjgvelurecll2l3xjpbe', 'run_agrclvvewo7uiu2vqci3oioame', 'gate_decided', 1795931154741, '{"at_ms":1795931154741,"id":"evt_agrclvvjgvelurecll2l3xjpbe","kind":{"approved":false,"node":"node_agrclvvgzjfg5j7mpv3ze6t6sq","reason":"The plan has no tests","to":"node_agrclvvjgunjabimkeiducclca","type":"gate_decided"},"prev_hash":"db228c4c7cc1161e4e22416e92f345c2bef55eb4e215b930369bc59b74139114","run":"run_agrclvvewo7uiu2vqci3oioame","seq":7,"session":"sess_agrclvvewpyhre4hsy4thdrboa","v":1}', 'db228c4c7cc1161e4e22416e92f345c2bef55eb4e215b930369bc59b74139114', '7c3487a1af9d2a2a5447ed86658d0995c72f6d568af163e73672d2be10dece1c');
INSERT INTO public.events VALUES ('sess_agrclvvewpyhre4hsy4thdrboa', 8, 'evt_agrclvvlphlpigrb7ypmfkmq3i', 'run_agrclvvewo7uiu2vqci3oioame', 'node_created', 1795931155321, '{"at_ms":1795931155321,"id":"evt_agrclvvlphlpigrb7ypmfkmq3i","kind":{"cause":"advance","kind":"gate","node":"node_agrclvvlpfhzid5rsa3jptpqve","parent":"node_agrclvvjgunjabimkeiducclca","state":{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":1,"steps_completed":0,"traversals":{}},"phase":{"kind":"waiting_gate","submission":{"choice":null}},"rejection":"The plan has no tests","step":"plan"},"status":"waiting_gate","step":"plan","type":"node_created"},"prev_hash":"7c3487a1af9d2a2a5447ed86658d0995c72f6d568af163e73672d2be10dece1c","run":"run_agrclvvewo7uiu2vqci3oioame","seq":8,"session":"sess_agrclvvewpyhre4hsy4thdrboa","v":1}', '7c3487a1af9d2a2a5447ed86658d0995c72f6d568af163e73672d2be10dece1c', '698ecabd67a243af809f49eca6122fa16103d52395c51ccb7c25becbdac5086d');
INSERT INTO public.events VALUES ('sess_agrclvvewpyhre4hsy4thdrboa', 9, 'evt_agrclvvlpha52i3xpmu5heagrq', 'run_agrclvvewo7uiu2vqci3oioame', 'advance_recorded', 1795931155321, '{"at_ms":1795931155321,"id":"evt_agrclvvlpha52i3xpmu5heagrq","kind":{"artifacts":null,"attempt":"attempt_qyialov4c44xizn225rp7btwjy","choice":null,"context_delta":null,"edge_label":null,"from":"node_agrclvvjgunjabimkeiducclca","notes":"Plan: as before, with a test of each level.","to":"node_agrclvvlpfhzid5rsa3jptpqve","type":"advance_recorded"},"prev_hash":"698ecabd67a243af809f49eca6122fa16103d52395c51ccb7c25becbdac5086d","run":"run_agrclvvewo7uiu2vqci3oioame","seq":9,"session":"sess_agrclvvewpyhre4hsy4thdrboa","v":1}', '698ecabd67a243af809f49eca6122fa16103d52395c51ccb7c25becbdac5086d', '0c19cf46d55fb7e6233f7a305421336da86f3e5a16791b08d3b0d5fb4bd57210');
INSERT INTO public.events VALUES ('sess_agrclvvewpyhre4hsy4thdrboa', 19, 'evt_agrclvvxtmvu5pjc7cyoexw3hu', 'run_agrclvvewo7uiu2vqci3oioame', 'gate_decided', 1795931158427, '{"at_ms":1795931158427,"id":"evt_agrclvvxtmvu5pjc7cyoexw3hu","kind":{"approved":true,"node":"node_agrclvvtz2sgn56wmdopjpnxae","reason":null,"to":"node_agrclvvxtofjtijw7pwhvgthbq","type":"gate_decided"},"prev_hash":"02925b67c14e94ebc02d5b31e4efc3d954ebebad1f4275488efa6972b2859d59","run":"run_agrclvvewo7uiu2vqci3oioame","seq":19,"session":"sess_agrclvvewpyhre4hsy4thdrboa","v":1}', '02925b67c14e94ebc02d5b31e4efc3d954ebebad1f4275488efa6972b2859d59', '65b253872e0c1173dabe6dfc39bb33c3aa6d596d1647810493e310569569a596');
INSERT INTO public.events VALUES ('sess_agrclvvewpyhre4hsy4thdrboa', 10, 'evt_agrclvvns6kqdmgvannqyisz7y', 'run_agrclvvewo7uiu2vqci3oioame', 'node_created', 1795931155863, '{"at_ms":1795931155863,"id":"evt_agrclvvns6kqdmgvannqyisz7y","kind":{"cause":"advance","kind":"decision","node":"node_agrclvvns5jnut7frj7572lldm","parent":"node_agrclvvlpfhzid5rsa3jptpqve","state":{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":1,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"implement"},"status":"active","step":"implement","type":"node_created"},"prev_hash":"0c19cf46d55fb7e6233f7a305421336da86f3e5a16791b08d3b0d5fb4bd57210","run":"run_agrclvvewo7uiu2vqci3oioame","seq":10,"session":"sess_agrclvvewpyhre4hsy4thdrboa","v":1}', '0c19cf46d55fb7e6233f7a305421336da86f3e5a16791b08d3b0d5fb4bd57210', '6f2fb523d42a237d86e2722570a1a92d0942f2baccccb6b4fd626a4912238d12');
INSERT INTO public.events VALUES ('sess_agrclvvewpyhre4hsy4thdrboa', 11, 'evt_agrclvvns7rsgk3u4tfhqj4phi', 'run_agrclvvewo7uiu2vqci3oioame', 'gate_decided', 1795931155863, '{"at_ms":1795931155863,"id":"evt_agrclvvns7rsgk3u4tfhqj4phi","kind":{"approved":true,"node":"node_agrclvvlpfhzid5rsa3jptpqve","reason":null,"to":"node_agrclvvns5jnut7frj7572lldm","type":"gate_decided"},"prev_hash":"6f2fb523d42a237d86e2722570a1a92d0942f2baccccb6b4fd626a4912238d12","run":"run_agrclvvewo7uiu2vqci3oioame","seq":11,"session":"sess_agrclvvewpyhre4hsy4thdrboa","v":1}', '6f2fb523d42a237d86e2722570a1a92d0942f2baccccb6b4fd626a4912238d12', '62269ff6640aece06aee3d73c488465310ec7942378447722bd03be6cb6e02b2');
INSERT INTO public.events VALUES ('sess_agrclvvewpyhre4hsy4thdrboa', 12, 'evt_agrclvvpvnwl76cmcy2usne7k4', 'run_agrclvvewo7uiu2vqci3oioame', 'node_created', 1795931156395, '{"at_ms":1795931156395,"id":"evt_agrclvvpvnwl76cmcy2usne7k4","kind":{"cause":"advance","kind":"blocked_attempt","node":"node_agrclvvpvmegh3oxttoz7v7efm","parent":"node_agrclvvns5jnut7frj7572lldm","state":{"context":{},"counters":{"attempts":1,"cycles":0,"replans":0,"revisions":0,"steps_completed":1,"traversals":{}},"phase":{"kind":"blocked","validation":{"issues":[{"code":"NOTES_REQUIRED","message":"step `implement` requires notes: send a short markdown summary of what you did","path":"notes"}]}},"rejection":null,"step":"implement"},"status":"blocked","step":"implement","type":"node_created"},"prev_hash":"62269ff6640aece06aee3d73c488465310ec7942378447722bd03be6cb6e02b2","run":"run_agrclvvewo7uiu2vqci3oioame","seq":12,"session":"sess_agrclvvewpyhre4hsy4thdrboa","v":1}', '62269ff6640aece06aee3d73c488465310ec7942378447722bd03be6cb6e02b2', 'd55a9e6dd0c775a2d64d1870ce900cc586a97d47fac7ea05a722fb581ea83a2d');
INSERT INTO public.events VALUES ('sess_agrclvvewpyhre4hsy4thdrboa', 13, 'evt_agrclvvpvptl6qkevkvdgozkm4', 'run_agrclvvewo7uiu2vqci3oioame', 'advance_recorded', 1795931156395, '{"at_ms":1795931156395,"id":"evt_agrclvvpvptl6qkevkvdgozkm4","kind":{"artifacts":null,"attempt":"attempt_6necjwvyrzq2qafyjgndpq6voy","choice":null,"context_delta":null,"edge_label":null,"from":"node_agrclvvns5jnut7frj7572lldm","notes":null,"to":"node_agrclvvpvmegh3oxttoz7v7efm","type":"advance_recorded"},"prev_hash":"d55a9e6dd0c775a2d64d1870ce900cc586a97d47fac7ea05a722fb581ea83a2d","run":"run_agrclvvewo7uiu2vqci3oioame","seq":13,"session":"sess_agrclvvewpyhre4hsy4thdrboa","v":1}', 'd55a9e6dd0c775a2d64d1870ce900cc586a97d47fac7ea05a722fb581ea83a2d', '395e657cc9884244b26f56755a7abc45793ae3e0e4bd084f9d3344279f4b1341');
INSERT INTO public.events VALUES ('sess_agrclvvewpyhre4hsy4thdrboa', 14, 'evt_agrclvvrxkb5pcfvcs2z3m4g7q', 'run_agrclvvewo7uiu2vqci3oioame', 'node_created', 1795931156921, '{"at_ms":1795931156921,"id":"evt_agrclvvrxkb5pcfvcs2z3m4g7q","kind":{"cause":"advance","kind":"step","node":"node_agrclvvrxglo6yyxchcq5kb47m","parent":"node_agrclvvpvmegh3oxttoz7v7efm","state":{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":2,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"review"},"status":"active","step":"review","type":"node_created"},"prev_hash":"395e657cc9884244b26f56755a7abc45793ae3e0e4bd084f9d3344279f4b1341","run":"run_agrclvvewo7uiu2vqci3oioame","seq":14,"session":"sess_agrclvvewpyhre4hsy4thdrboa","v":1}', '395e657cc9884244b26f56755a7abc45793ae3e0e4bd084f9d3344279f4b1341', '0b6707e15d84b5c5a24411de9513082bd70591b643917e74e361b2cb2d72be1e');
INSERT INTO public.events VALUES ('sess_agrclvvewpyhre4hsy4thdrboa', 15, 'evt_agrclvvrxk5hvod5oupae45y6a', 'run_agrclvvewo7uiu2vqci3oioame', 'advance_recorded', 1795931156921, '{"at_ms":1795931156921,"id":"evt_agrclvvrxk5hvod5oupae45y6a","kind":{"artifacts":null,"attempt":"attempt_au6xbqpkoddbixucqjbrxljx54","choice":null,"context_delta":null,"edge_label":"review","from":"node_agrclvvpvmegh3oxttoz7v7efm","notes":"Added the flag and its tests.","to":"node_agrclvvrxglo6yyxchcq5kb47m","type":"advance_recorded"},"prev_hash":"0b6707e15d84b5c5a24411de9513082bd70591b643917e74e361b2cb2d72be1e","run":"run_agrclvvewo7uiu2vqci3oioame","seq":15,"session":"sess_agrclvvewpyhre4hsy4thdrboa","v":1}', '0b6707e15d84b5c5a24411de9513082bd70591b643917e74e361b2cb2d72be1e', '9fb6b7df7a6bb1db4e5fd77e9e3f07a9e7b73e8b9f5a5c35763ad980e48e401a');
INSERT INTO public.events VALUES ('sess_agrclvvewpyhre4hsy4thdrboa', 16, 'evt_agrclvvtzzdwayhtpo4bi2wzrq', 'run_agrclvvewo7uiu2vqci3oioame', 'node_created', 1795931157454, '{"at_ms":1795931157454,"id":"evt_agrclvvtzzdwayhtpo4bi2wzrq","kind":{"cause":"advance","kind":"gate","node":"node_agrclvvtz2sgn56wmdopjpnxae","parent":"node_agrclvvrxglo6yyxchcq5kb47m","state":{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":2,"traversals":{}},"phase":{"kind":"waiting_gate","submission":{"choice":"close"}},"rejection":null,"step":"review"},"status":"waiting_gate","step":"review","type":"node_created"},"prev_hash":"9fb6b7df7a6bb1db4e5fd77e9e3f07a9e7b73e8b9f5a5c35763ad980e48e401a","run":"run_agrclvvewo7uiu2vqci3oioame","seq":16,"session":"sess_agrclvvewpyhre4hsy4thdrboa","v":1}', '9fb6b7df7a6bb1db4e5fd77e9e3f07a9e7b73e8b9f5a5c35763ad980e48e401a', '323970ec0ea424e4ab89684698bbc4e59f9db387da19ac632bef866bd2374b77');
INSERT INTO public.events VALUES ('sess_agrclvvewpyhre4hsy4thdrboa', 17, 'evt_agrclvvtzze6eycb6vizsn7ck4', 'run_agrclvvewo7uiu2vqci3oioame', 'advance_recorded', 1795931157454, '{"at_ms":1795931157454,"id":"evt_agrclvvtzze6eycb6vizsn7ck4","kind":{"artifacts":null,"attempt":"attempt_xfrkzpdfrgnzu7fcngzwlwmany","choice":"close","context_delta":null,"edge_label":null,"from":"node_agrclvvrxglo6yyxchcq5kb47m","notes":"Reviewed: the tests cover every level.","to":"node_agrclvvtz2sgn56wmdopjpnxae","type":"advance_recorded"},"prev_hash":"323970ec0ea424e4ab89684698bbc4e59f9db387da19ac632bef866bd2374b77","run":"run_agrclvvewo7uiu2vqci3oioame","seq":17,"session":"sess_agrclvvewpyhre4hsy4thdrboa","v":1}', '323970ec0ea424e4ab89684698bbc4e59f9db387da19ac632bef866bd2374b77', '14321b5e25c2f8819d32f34c0c13216bf143d2d606596e4d87f83d16ee3a1b0e');
INSERT INTO public.events VALUES ('sess_agrclvvewpyhre4hsy4thdrboa', 18, 'evt_agrclvvxtmcfm5qgdxhsemw35y', 'run_agrclvvewo7uiu2vqci3oioame', 'node_created', 1795931158427, '{"at_ms":1795931158427,"id":"evt_agrclvvxtmcfm5qgdxhsemw35y","kind":{"cause":"advance","kind":"decision","node":"node_agrclvvxtofjtijw7pwhvgthbq","parent":"node_agrclvvtz2sgn56wmdopjpnxae","state":{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":3,"traversals":{}},"phase":{"kind":"completed"},"rejection":null,"step":"review"},"status":"completed","step":"review","type":"node_created"},"prev_hash":"14321b5e25c2f8819d32f34c0c13216bf143d2d606596e4d87f83d16ee3a1b0e","run":"run_agrclvvewo7uiu2vqci3oioame","seq":18,"session":"sess_agrclvvewpyhre4hsy4thdrboa","v":1}', '14321b5e25c2f8819d32f34c0c13216bf143d2d606596e4d87f83d16ee3a1b0e', '02925b67c14e94ebc02d5b31e4efc3d954ebebad1f4275488efa6972b2859d59');
INSERT INTO public.events VALUES ('sess_agrclvvewpyhre4hsy4thdrboa', 20, 'evt_agrclvvxtocew2sdrd6fkenjjy', 'run_agrclvvewo7uiu2vqci3oioame', 'run_completed', 1795931158427, '{"at_ms":1795931158427,"id":"evt_agrclvvxtocew2sdrd6fkenjjy","kind":{"node":"node_agrclvvxtofjtijw7pwhvgthbq","type":"run_completed"},"prev_hash":"65b253872e0c1173dabe6dfc39bb33c3aa6d596d1647810493e310569569a596","run":"run_agrclvvewo7uiu2vqci3oioame","seq":20,"session":"sess_agrclvvewpyhre4hsy4thdrboa","v":1}', '65b253872e0c1173dabe6dfc39bb33c3aa6d596d1647810493e310569569a596', '2b20253c2bc1aa6af233f49c4cc4b96f66bf63c9a83b8bd7bbb151c462f1c53a');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 1, 'evt_agrclvvzsmbnuwgvsmb7zszfgm', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'session_created', 1795931158931, '{"at_ms":1795931158931,"id":"evt_agrclvvzsmbnuwgvsmb7zszfgm","kind":{"git_branch":"main","git_head":"ab62eb9bb95f59009211ff398c29c2643629c972","goal":"Cache the parsed configuration","title":"Cache the parsed configuration","type":"session_created","workspace":"/tmp/.tmp7lKasv"},"prev_hash":"0000000000000000000000000000000000000000000000000000000000000000","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":1,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', '0000000000000000000000000000000000000000000000000000000000000000', '5fc1bb817e4b2782b739c5d1ce7d03bef65677f057b0b490e3608cb54002cd7f');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 2, 'evt_agrclvvzspojjekw5ucxr5sxby', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'run_started', 1795931158931, '{"at_ms":1795931158931,"id":"evt_agrclvvzspojjekw5ucxr5sxby","kind":{"source":"builtin:dev-cycle","type":"run_started","workflow_hash":"sha256:4fe5d394cc07011750b53a8da331020b7cedd7d1de28a9508815a112b4795051","workflow_id":"dev-cycle"},"prev_hash":"5fc1bb817e4b2782b739c5d1ce7d03bef65677f057b0b490e3608cb54002cd7f","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":2,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', '5fc1bb817e4b2782b739c5d1ce7d03bef65677f057b0b490e3608cb54002cd7f', 'afd915bae65c18033a37c8fb0bfd839e0749a9d81f657b4f1296c55735ac8abc');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 3, 'evt_agrclvvzsoi24pslqmhuds3rfa', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_created', 1795931158931, '{"at_ms":1795931158931,"id":"evt_agrclvvzsoi24pslqmhuds3rfa","kind":{"cause":"start","kind":"start","node":"node_agrclvvzqm3nszvjrtirnsnpge","parent":null,"state":{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"plan"},"status":"active","step":"plan","type":"node_created"},"prev_hash":"afd915bae65c18033a37c8fb0bfd839e0749a9d81f657b4f1296c55735ac8abc","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":3,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', 'afd915bae65c18033a37c8fb0bfd839e0749a9d81f657b4f1296c55735ac8abc', '8d68f5439230730cf850f641d29400ae0be6a03164707dd545926cf9a22bc561');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 4, 'evt_agrclvv3m257iv3anw7eycvgwi', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_created', 1795931159398, '{"at_ms":1795931159398,"id":"evt_agrclvv3m257iv3anw7eycvgwi","kind":{"cause":"advance","kind":"gate","node":"node_agrclvv3mxq3lyr5ey7dwb53py","parent":"node_agrclvvzqm3nszvjrtirnsnpge","state":{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"kind":"waiting_gate","submission":{"choice":null}},"rejection":null,"step":"plan"},"status":"waiting_gate","step":"plan","type":"node_created"},"prev_hash":"8d68f5439230730cf850f641d29400ae0be6a03164707dd545926cf9a22bc561","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":4,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', '8d68f5439230730cf850f641d29400ae0be6a03164707dd545926cf9a22bc561', '09b9ee0b1bf39ae2b7d21a76f06437d173fc493b0ea321a1f800b1275ecf08cc');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 5, 'evt_agrclvv3my2336dbg6qe6namea', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'advance_recorded', 1795931159398, '{"at_ms":1795931159398,"id":"evt_agrclvv3my2336dbg6qe6namea","kind":{"artifacts":null,"attempt":"attempt_3qv54nfqh35qzlbywutfne6l5y","choice":null,"context_delta":null,"edge_label":null,"from":"node_agrclvvzqm3nszvjrtirnsnpge","notes":"Plan, version 1.","to":"node_agrclvv3mxq3lyr5ey7dwb53py","type":"advance_recorded"},"prev_hash":"09b9ee0b1bf39ae2b7d21a76f06437d173fc493b0ea321a1f800b1275ecf08cc","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":5,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', '09b9ee0b1bf39ae2b7d21a76f06437d173fc493b0ea321a1f800b1275ecf08cc', '97b2b74bbba5baedca56b673525d92003f3bae1a76f0371aa833c21251614a77');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 6, 'evt_agrclvv5ctakd44nrpnbcpzz6y', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_created', 1795931159828, '{"at_ms":1795931159828,"id":"evt_agrclvv5ctakd44nrpnbcpzz6y","kind":{"cause":"advance","kind":"decision","node":"node_agrclvv5ctnxm7tv3wexqmh3t4","parent":"node_agrclvv3mxq3lyr5ey7dwb53py","state":{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":1,"steps_completed":0,"traversals":{}},"phase":{"kind":"pending"},"rejection":"Rejection 1: too vague","step":"plan"},"status":"active","step":"plan","type":"node_created"},"prev_hash":"97b2b74bbba5baedca56b673525d92003f3bae1a76f0371aa833c21251614a77","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":6,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', '97b2b74bbba5baedca56b673525d92003f3bae1a76f0371aa833c21251614a77', 'a3a08d2c19719007ae71b32369ea226fb7a690c6744e59446983867fb157676e');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 7, 'evt_agrclvv5cszck5uhylpyzukem4', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'gate_decided', 1795931159828, '{"at_ms":1795931159828,"id":"evt_agrclvv5cszck5uhylpyzukem4","kind":{"approved":false,"node":"node_agrclvv3mxq3lyr5ey7dwb53py","reason":"Rejection 1: too vague","to":"node_agrclvv5ctnxm7tv3wexqmh3t4","type":"gate_decided"},"prev_hash":"a3a08d2c19719007ae71b32369ea226fb7a690c6744e59446983867fb157676e","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":7,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', 'a3a08d2c19719007ae71b32369ea226fb7a690c6744e59446983867fb157676e', '182b6e44b939ac08cfeb4815719640ee945bf32634708f22d72c9d9452d52d99');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 8, 'evt_agrclvv7du774qsapt6x57ns5u', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_created', 1795931160349, '{"at_ms":1795931160349,"id":"evt_agrclvv7du774qsapt6x57ns5u","kind":{"cause":"advance","kind":"gate","node":"node_agrclvv7dsksduehid5hhruoua","parent":"node_agrclvv5ctnxm7tv3wexqmh3t4","state":{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":1,"steps_completed":0,"traversals":{}},"phase":{"kind":"waiting_gate","submission":{"choice":null}},"rejection":"Rejection 1: too vague","step":"plan"},"status":"waiting_gate","step":"plan","type":"node_created"},"prev_hash":"182b6e44b939ac08cfeb4815719640ee945bf32634708f22d72c9d9452d52d99","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":8,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', '182b6e44b939ac08cfeb4815719640ee945bf32634708f22d72c9d9452d52d99', 'a6cf02042cd36cd3c17053f980b503935d7daaa512ef1dc67fc255d610b81a51');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 9, 'evt_agrclvv7dwxds47g5mw2uwi6hu', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'advance_recorded', 1795931160349, '{"at_ms":1795931160349,"id":"evt_agrclvv7dwxds47g5mw2uwi6hu","kind":{"artifacts":null,"attempt":"attempt_x3gqixllwchpnz35l24rvxe2ty","choice":null,"context_delta":null,"edge_label":null,"from":"node_agrclvv5ctnxm7tv3wexqmh3t4","notes":"Plan, version 2.","to":"node_agrclvv7dsksduehid5hhruoua","type":"advance_recorded"},"prev_hash":"a6cf02042cd36cd3c17053f980b503935d7daaa512ef1dc67fc255d610b81a51","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":9,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', 'a6cf02042cd36cd3c17053f980b503935d7daaa512ef1dc67fc255d610b81a51', '4fd50685530a1e4d9fec7c41740873c4a7f5ba6b83b799add5a2901f3b3f9764');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 10, 'evt_agrclvwbca2grqudf3sgtgp4hq', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_created', 1795931160848, '{"at_ms":1795931160848,"id":"evt_agrclvwbca2grqudf3sgtgp4hq","kind":{"cause":"advance","kind":"decision","node":"node_agrclvwbcdgwktct2zng2kq4hu","parent":"node_agrclvv7dsksduehid5hhruoua","state":{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":2,"steps_completed":0,"traversals":{}},"phase":{"kind":"pending"},"rejection":"Rejection 2: too vague","step":"plan"},"status":"active","step":"plan","type":"node_created"},"prev_hash":"4fd50685530a1e4d9fec7c41740873c4a7f5ba6b83b799add5a2901f3b3f9764","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":10,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', '4fd50685530a1e4d9fec7c41740873c4a7f5ba6b83b799add5a2901f3b3f9764', '9b07907ab6a27a9bedb0eb83d6320bb372365280bfd08a0bc32a4fc1f5a26a3c');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 11, 'evt_agrclvwbcbyemnpdg7ttmeudju', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'gate_decided', 1795931160848, '{"at_ms":1795931160848,"id":"evt_agrclvwbcbyemnpdg7ttmeudju","kind":{"approved":false,"node":"node_agrclvv7dsksduehid5hhruoua","reason":"Rejection 2: too vague","to":"node_agrclvwbcdgwktct2zng2kq4hu","type":"gate_decided"},"prev_hash":"9b07907ab6a27a9bedb0eb83d6320bb372365280bfd08a0bc32a4fc1f5a26a3c","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":11,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', '9b07907ab6a27a9bedb0eb83d6320bb372365280bfd08a0bc32a4fc1f5a26a3c', '250e4a6f3eee3ee3b2a46370d2ab6ab2ee549d60fb587178091bba6e91374494');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 12, 'evt_agrclvwdmz5lbauxiqazf6h4uq', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_created', 1795931161446, '{"at_ms":1795931161446,"id":"evt_agrclvwdmz5lbauxiqazf6h4uq","kind":{"cause":"advance","kind":"gate","node":"node_agrclvwdmx5jiqvm3lse62w4j4","parent":"node_agrclvwbcdgwktct2zng2kq4hu","state":{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":2,"steps_completed":0,"traversals":{}},"phase":{"kind":"waiting_gate","submission":{"choice":null}},"rejection":"Rejection 2: too vague","step":"plan"},"status":"waiting_gate","step":"plan","type":"node_created"},"prev_hash":"250e4a6f3eee3ee3b2a46370d2ab6ab2ee549d60fb587178091bba6e91374494","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":12,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', '250e4a6f3eee3ee3b2a46370d2ab6ab2ee549d60fb587178091bba6e91374494', '26cb0d844484e040f927b7b781b5ba2e5da68e74ea63e75017752ccdef50da37');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 13, 'evt_agrclvwdmyyvs5kjmrof63c47e', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'advance_recorded', 1795931161446, '{"at_ms":1795931161446,"id":"evt_agrclvwdmyyvs5kjmrof63c47e","kind":{"artifacts":null,"attempt":"attempt_hatmcnzgokptsxn5c6eoaqcgsq","choice":null,"context_delta":null,"edge_label":null,"from":"node_agrclvwbcdgwktct2zng2kq4hu","notes":"Plan, version 3.","to":"node_agrclvwdmx5jiqvm3lse62w4j4","type":"advance_recorded"},"prev_hash":"26cb0d844484e040f927b7b781b5ba2e5da68e74ea63e75017752ccdef50da37","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":13,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', '26cb0d844484e040f927b7b781b5ba2e5da68e74ea63e75017752ccdef50da37', '5c5903648a2b67cdbdf57bafc777cbce7041d3a7104c86ae3a27bac956537953');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 14, 'evt_agrclvwfrehqv3oqqra6eiz5va', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_created', 1795931161993, '{"at_ms":1795931161993,"id":"evt_agrclvwfrehqv3oqqra6eiz5va","kind":{"cause":"advance","kind":"decision","node":"node_agrclvwfrh4vaieaoilargbqmq","parent":"node_agrclvwdmx5jiqvm3lse62w4j4","state":{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":3,"steps_completed":0,"traversals":{}},"phase":{"kind":"pending"},"rejection":"Rejection 3: too vague","step":"plan"},"status":"active","step":"plan","type":"node_created"},"prev_hash":"5c5903648a2b67cdbdf57bafc777cbce7041d3a7104c86ae3a27bac956537953","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":14,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', '5c5903648a2b67cdbdf57bafc777cbce7041d3a7104c86ae3a27bac956537953', '88407ff464f84f084d4c51c8ba0c4ff47ca867b6b404e4fd845dc608b8198094');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 15, 'evt_agrclvwfrgiqkrukyss6mizkhm', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'gate_decided', 1795931161993, '{"at_ms":1795931161993,"id":"evt_agrclvwfrgiqkrukyss6mizkhm","kind":{"approved":false,"node":"node_agrclvwdmx5jiqvm3lse62w4j4","reason":"Rejection 3: too vague","to":"node_agrclvwfrh4vaieaoilargbqmq","type":"gate_decided"},"prev_hash":"88407ff464f84f084d4c51c8ba0c4ff47ca867b6b404e4fd845dc608b8198094","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":15,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', '88407ff464f84f084d4c51c8ba0c4ff47ca867b6b404e4fd845dc608b8198094', '07a498231dc17e920c81c4f7d2fdc0cf1d7560dcfe9ed64b2a4945806e50ab91');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 16, 'evt_agrclvwhrgtabjvrtcemve35qy', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_created', 1795931162505, '{"at_ms":1795931162505,"id":"evt_agrclvwhrgtabjvrtcemve35qy","kind":{"cause":"advance","kind":"gate","node":"node_agrclvwhrewb4cptrg3ljy7cbe","parent":"node_agrclvwfrh4vaieaoilargbqmq","state":{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":3,"steps_completed":0,"traversals":{}},"phase":{"kind":"waiting_gate","submission":{"choice":null}},"rejection":"Rejection 3: too vague","step":"plan"},"status":"waiting_gate","step":"plan","type":"node_created"},"prev_hash":"07a498231dc17e920c81c4f7d2fdc0cf1d7560dcfe9ed64b2a4945806e50ab91","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":16,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', '07a498231dc17e920c81c4f7d2fdc0cf1d7560dcfe9ed64b2a4945806e50ab91', 'd2a4f83bd58f914103ffe2c0f20fd2bf2e0d4fa4f908dc66ea4a846f5cf597cd');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 17, 'evt_agrclvwhredhl66iuk6xq7snki', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'advance_recorded', 1795931162505, '{"at_ms":1795931162505,"id":"evt_agrclvwhredhl66iuk6xq7snki","kind":{"artifacts":null,"attempt":"attempt_7eo7a4vyglp43dshz3u3lxdg64","choice":null,"context_delta":null,"edge_label":null,"from":"node_agrclvwfrh4vaieaoilargbqmq","notes":"Plan, version 4.","to":"node_agrclvwhrewb4cptrg3ljy7cbe","type":"advance_recorded"},"prev_hash":"d2a4f83bd58f914103ffe2c0f20fd2bf2e0d4fa4f908dc66ea4a846f5cf597cd","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":17,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', 'd2a4f83bd58f914103ffe2c0f20fd2bf2e0d4fa4f908dc66ea4a846f5cf597cd', '396115997cc23d4f05ae67df4e40fbb71e432bd58724fd2f669af6e2385002b7');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 18, 'evt_agrclvwjradxfnakgyaxhcg2li', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_created', 1795931163016, '{"at_ms":1795931163016,"id":"evt_agrclvwjradxfnakgyaxhcg2li","kind":{"cause":"advance","kind":"decision","node":"node_agrclvwjraayu6lvntvt3qfxzi","parent":"node_agrclvwhrewb4cptrg3ljy7cbe","state":{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":4,"steps_completed":0,"traversals":{}},"phase":{"kind":"waiting_for_human_decision","options":["accept","revise","stop"],"reason":"revision_limit","submission":{"choice":null}},"rejection":"Rejection 4: too vague","step":"plan"},"status":"waiting_for_human_decision","step":"plan","type":"node_created"},"prev_hash":"396115997cc23d4f05ae67df4e40fbb71e432bd58724fd2f669af6e2385002b7","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":18,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', '396115997cc23d4f05ae67df4e40fbb71e432bd58724fd2f669af6e2385002b7', '6ab70389d67e727e101daef1fadfcb1b29c47b0b9fbd93134b65ba97cdb38b93');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 19, 'evt_agrclvwjraxamizh3ymtwa4jki', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'gate_decided', 1795931163016, '{"at_ms":1795931163016,"id":"evt_agrclvwjraxamizh3ymtwa4jki","kind":{"approved":false,"node":"node_agrclvwhrewb4cptrg3ljy7cbe","reason":"Rejection 4: too vague","to":"node_agrclvwjraayu6lvntvt3qfxzi","type":"gate_decided"},"prev_hash":"6ab70389d67e727e101daef1fadfcb1b29c47b0b9fbd93134b65ba97cdb38b93","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":19,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', '6ab70389d67e727e101daef1fadfcb1b29c47b0b9fbd93134b65ba97cdb38b93', '6584d911cab9b4005e5693c36b2616f8d04c4b62be653fcbcc1caf5994251b76');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 20, 'evt_agrclvwlo6uchqsnyp5byvw2ri', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_created', 1795931163511, '{"at_ms":1795931163511,"id":"evt_agrclvwlo6uchqsnyp5byvw2ri","kind":{"cause":"advance","kind":"decision","node":"node_agrclvwlo5su2wkmz4vdkpnno4","parent":"node_agrclvwjraayu6lvntvt3qfxzi","state":{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"kind":"pending"},"rejection":"Rejection 4: too vague","step":"plan"},"status":"active","step":"plan","type":"node_created"},"prev_hash":"6584d911cab9b4005e5693c36b2616f8d04c4b62be653fcbcc1caf5994251b76","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":20,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', '6584d911cab9b4005e5693c36b2616f8d04c4b62be653fcbcc1caf5994251b76', 'ef32a691feab582bdf9206bcaac254e85623c12ec17e357a03ff37750ed36685');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 21, 'evt_agrclvwlo77ore2gvjwcpdqlca', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'human_decided', 1795931163511, '{"at_ms":1795931163511,"id":"evt_agrclvwlo77ore2gvjwcpdqlca","kind":{"node":"node_agrclvwjraayu6lvntvt3qfxzi","note":"One more try, with the invalidation spelled out","option":"revise","to":"node_agrclvwlo5su2wkmz4vdkpnno4","type":"human_decided"},"prev_hash":"ef32a691feab582bdf9206bcaac254e85623c12ec17e357a03ff37750ed36685","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":21,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', 'ef32a691feab582bdf9206bcaac254e85623c12ec17e357a03ff37750ed36685', '3ad62d18a6411f9a54166222ced4ce0f695b22d60a69937ae0ac0338bcc7e967');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 22, 'evt_agrclvwnu3wudxf7knakeaw6vm', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_created', 1795931164070, '{"at_ms":1795931164070,"id":"evt_agrclvwnu3wudxf7knakeaw6vm","kind":{"cause":"advance","kind":"gate","node":"node_agrclvwnuuicf6ptrtbx22ncta","parent":"node_agrclvwlo5su2wkmz4vdkpnno4","state":{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"kind":"waiting_gate","submission":{"choice":null}},"rejection":"Rejection 4: too vague","step":"plan"},"status":"waiting_gate","step":"plan","type":"node_created"},"prev_hash":"3ad62d18a6411f9a54166222ced4ce0f695b22d60a69937ae0ac0338bcc7e967","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":22,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', '3ad62d18a6411f9a54166222ced4ce0f695b22d60a69937ae0ac0338bcc7e967', 'c284c43d381c9e75091593b9aef1eb555417a734ac842d7736bcb4aa7f23ac05');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 23, 'evt_agrclvwnu3x6ouukfcpjt435au', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'advance_recorded', 1795931164070, '{"at_ms":1795931164070,"id":"evt_agrclvwnu3x6ouukfcpjt435au","kind":{"artifacts":null,"attempt":"attempt_o7jmltod4yefc54l7muh56y7xq","choice":null,"context_delta":null,"edge_label":null,"from":"node_agrclvwlo5su2wkmz4vdkpnno4","notes":"Plan, version 5: invalidate on every write.","to":"node_agrclvwnuuicf6ptrtbx22ncta","type":"advance_recorded"},"prev_hash":"c284c43d381c9e75091593b9aef1eb555417a734ac842d7736bcb4aa7f23ac05","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":23,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', 'c284c43d381c9e75091593b9aef1eb555417a734ac842d7736bcb4aa7f23ac05', 'd0c2fc1ac8f121cd03a24d57a2c0c4544c34b4975b6e64f3fabae4903618f553');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 24, 'evt_agrclvwpqumhb7j6v3uvwvekry', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_created', 1795931164549, '{"at_ms":1795931164549,"id":"evt_agrclvwpqumhb7j6v3uvwvekry","kind":{"cause":"advance","kind":"decision","node":"node_agrclvwpqw7yokcrmdfi35lx2u","parent":"node_agrclvwnuuicf6ptrtbx22ncta","state":{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":1,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"implement"},"status":"active","step":"implement","type":"node_created"},"prev_hash":"d0c2fc1ac8f121cd03a24d57a2c0c4544c34b4975b6e64f3fabae4903618f553","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":24,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', 'd0c2fc1ac8f121cd03a24d57a2c0c4544c34b4975b6e64f3fabae4903618f553', '1507e400cd6520f81405c92875c7ede50ff55d004bc98d742cba80bc7da7c827');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 25, 'evt_agrclvwpquhsg5zeioqsprajiu', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'gate_decided', 1795931164549, '{"at_ms":1795931164549,"id":"evt_agrclvwpquhsg5zeioqsprajiu","kind":{"approved":true,"node":"node_agrclvwnuuicf6ptrtbx22ncta","reason":null,"to":"node_agrclvwpqw7yokcrmdfi35lx2u","type":"gate_decided"},"prev_hash":"1507e400cd6520f81405c92875c7ede50ff55d004bc98d742cba80bc7da7c827","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":25,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', '1507e400cd6520f81405c92875c7ede50ff55d004bc98d742cba80bc7da7c827', 'e21f1e9aa8b0ec37c0dd77e25f38bb0315cbc0f6ec43929148005906e52d2290');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 26, 'evt_agrclvwrpurfs4hphqcdlwdweq', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_created', 1795931165053, '{"at_ms":1795931165053,"id":"evt_agrclvwrpurfs4hphqcdlwdweq","kind":{"cause":"advance","kind":"step","node":"node_agrclvwrpsazh3nm72ju2l27gu","parent":"node_agrclvwpqw7yokcrmdfi35lx2u","state":{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":2,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"review"},"status":"active","step":"review","type":"node_created"},"prev_hash":"e21f1e9aa8b0ec37c0dd77e25f38bb0315cbc0f6ec43929148005906e52d2290","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":26,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', 'e21f1e9aa8b0ec37c0dd77e25f38bb0315cbc0f6ec43929148005906e52d2290', '4ff65eb296aa1d4496a507947b1eb508f41cb3d10f68ab4528641b6bc78ebab7');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 27, 'evt_agrclvwrpuol5ukd7wgj2ipgti', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'advance_recorded', 1795931165053, '{"at_ms":1795931165053,"id":"evt_agrclvwrpuol5ukd7wgj2ipgti","kind":{"artifacts":null,"attempt":"attempt_77s4e53ngdyhx6xyodzrsy7pee","choice":null,"context_delta":null,"edge_label":"review","from":"node_agrclvwpqw7yokcrmdfi35lx2u","notes":"Cached it behind a lock.","to":"node_agrclvwrpsazh3nm72ju2l27gu","type":"advance_recorded"},"prev_hash":"4ff65eb296aa1d4496a507947b1eb508f41cb3d10f68ab4528641b6bc78ebab7","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":27,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', '4ff65eb296aa1d4496a507947b1eb508f41cb3d10f68ab4528641b6bc78ebab7', '48f898eaf69044c9343d34a586b52d2da4ae717d5c44b5af6ad7de886d47b07e');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 28, 'evt_agrclvwua3pvoflhau2eahtcaq', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'checkpoint_recorded', 1795931165702, '{"at_ms":1795931165702,"id":"evt_agrclvwua3pvoflhau2eahtcaq","kind":{"attempt":"attempt_oasuaxu2xknwssfmqclqv4mjvq","automatic":false,"node":"node_agrclvwrpsazh3nm72ju2l27gu","notes":"Review half done","phase":null,"type":"checkpoint_recorded"},"prev_hash":"48f898eaf69044c9343d34a586b52d2da4ae717d5c44b5af6ad7de886d47b07e","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":28,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', '48f898eaf69044c9343d34a586b52d2da4ae717d5c44b5af6ad7de886d47b07e', '57d0a78a68ad143a2567d67d85fd02dbf946f67b292690a8e087745006d9893c');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 29, 'evt_agrclvwyfarw5katse3csglk5m', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_created', 1795931166760, '{"at_ms":1795931166760,"id":"evt_agrclvwyfarw5katse3csglk5m","kind":{"cause":"fork","kind":"step","node":"node_agrclvwyfb6vhudru6vuva3x7u","parent":"node_agrclvwpqw7yokcrmdfi35lx2u","state":{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":2,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"review"},"status":"active","step":"review","type":"node_created"},"prev_hash":"57d0a78a68ad143a2567d67d85fd02dbf946f67b292690a8e087745006d9893c","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":29,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', '57d0a78a68ad143a2567d67d85fd02dbf946f67b292690a8e087745006d9893c', '54faea112154d76bfcc77265e6cf4666631353d36dc98a5c2e788b01bf82a66e');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 30, 'evt_agrclvwyfab3nkrmgoqruwwtxa', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'advance_recorded', 1795931166760, '{"at_ms":1795931166760,"id":"evt_agrclvwyfab3nkrmgoqruwwtxa","kind":{"artifacts":null,"attempt":"attempt_agrclvwwpkp45gkytdj54d6w3e","choice":null,"context_delta":null,"edge_label":"review","from":"node_agrclvwpqw7yokcrmdfi35lx2u","notes":"Cached it without a lock, per reader.","to":"node_agrclvwyfb6vhudru6vuva3x7u","type":"advance_recorded"},"prev_hash":"54faea112154d76bfcc77265e6cf4666631353d36dc98a5c2e788b01bf82a66e","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":30,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', '54faea112154d76bfcc77265e6cf4666631353d36dc98a5c2e788b01bf82a66e', '3835b6a98b7761545785cae5229fcc92c8619f5674afb3406dda7d48fe33d323');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 31, 'evt_agrclvw2gcgasmjqpjk3452ome', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'run_paused', 1795931167280, '{"at_ms":1795931167280,"id":"evt_agrclvw2gcgasmjqpjk3452ome","kind":{"reason":null,"type":"run_paused"},"prev_hash":"3835b6a98b7761545785cae5229fcc92c8619f5674afb3406dda7d48fe33d323","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":31,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', '3835b6a98b7761545785cae5229fcc92c8619f5674afb3406dda7d48fe33d323', '228ce1505f9846abaa2caef4c7cfc003f5436df62edea9526866380117857304');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 32, 'evt_agrclvw4dkswe4zgya6vmtn3au', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'run_resumed', 1795931167770, '{"at_ms":1795931167770,"id":"evt_agrclvw4dkswe4zgya6vmtn3au","kind":{"type":"run_resumed"},"prev_hash":"228ce1505f9846abaa2caef4c7cfc003f5436df62edea9526866380117857304","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":32,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', '228ce1505f9846abaa2caef4c7cfc003f5436df62edea9526866380117857304', '71460c4f5ec19b58fb78763552192cf8fc52da1af3088bb4de8e6a6e79042f1f');
INSERT INTO public.events VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 33, 'evt_agrclvw56je46xzhlrebhvpzq4', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'run_stopped', 1795931168242, '{"at_ms":1795931168242,"id":"evt_agrclvw56je46xzhlrebhvpzq4","kind":{"reason":"superseded by a simpler plan","type":"run_stopped"},"prev_hash":"71460c4f5ec19b58fb78763552192cf8fc52da1af3088bb4de8e6a6e79042f1f","run":"run_agrclvvzqpm44ejnfrvxjx5hqq","seq":33,"session":"sess_agrclvvzqo2xt4bca5px5f42ze","v":1}', '71460c4f5ec19b58fb78763552192cf8fc52da1af3088bb4de8e6a6e79042f1f', 'fe042fb01ed9f977bd8178cd9adba2a8059d3fd73f23ed7234dca7f3e48c1ec1');
INSERT INTO public.events VALUES ('sess_agrclvw76mzffnrb7mbjxodyl4', 1, 'evt_agrclvxaanpxaihmpsdwufyoky', 'run_agrclvw76obznuayy46pqtzj6e', 'session_created', 1795931168771, '{"at_ms":1795931168771,"id":"evt_agrclvxaanpxaihmpsdwufyoky","kind":{"git_branch":"main","git_head":"ab62eb9bb95f59009211ff398c29c2643629c972","goal":"Login fails after a password change","title":"Login fails after a password change","type":"session_created","workspace":"/tmp/.tmp7lKasv"},"prev_hash":"0000000000000000000000000000000000000000000000000000000000000000","run":"run_agrclvw76obznuayy46pqtzj6e","seq":1,"session":"sess_agrclvw76mzffnrb7mbjxodyl4","v":1}', '0000000000000000000000000000000000000000000000000000000000000000', '9a15c72dbff7394e3985675002eeb21e221e9419afe287af4fe042a749a2efd2');
INSERT INTO public.events VALUES ('sess_agrclvw76mzffnrb7mbjxodyl4', 2, 'evt_agrclvxaan3mzxccwvszt4sxeq', 'run_agrclvw76obznuayy46pqtzj6e', 'run_started', 1795931168771, '{"at_ms":1795931168771,"id":"evt_agrclvxaan3mzxccwvszt4sxeq","kind":{"source":"builtin:bug-investigation","type":"run_started","workflow_hash":"sha256:825a7afbfa76668de4c15d3cf0ab1ebb12be1230e220a1ef895899485297c228","workflow_id":"bug-investigation"},"prev_hash":"9a15c72dbff7394e3985675002eeb21e221e9419afe287af4fe042a749a2efd2","run":"run_agrclvw76obznuayy46pqtzj6e","seq":2,"session":"sess_agrclvw76mzffnrb7mbjxodyl4","v":1}', '9a15c72dbff7394e3985675002eeb21e221e9419afe287af4fe042a749a2efd2', '78f0b4e08a3a4f37ebe2e395ea186800c8196f6103a519bc697bdfb89a8b958b');
INSERT INTO public.events VALUES ('sess_agrclvw76mzffnrb7mbjxodyl4', 3, 'evt_agrclvxaaptwuiqfyyjhdq7ypa', 'run_agrclvw76obznuayy46pqtzj6e', 'node_created', 1795931168771, '{"at_ms":1795931168771,"id":"evt_agrclvxaaptwuiqfyyjhdq7ypa","kind":{"cause":"start","kind":"start","node":"node_agrclvw76n3nxanbl74mfjk7c4","parent":null,"state":{"context":{"confirmed":false},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"reproduce"},"status":"active","step":"reproduce","type":"node_created"},"prev_hash":"78f0b4e08a3a4f37ebe2e395ea186800c8196f6103a519bc697bdfb89a8b958b","run":"run_agrclvw76obznuayy46pqtzj6e","seq":3,"session":"sess_agrclvw76mzffnrb7mbjxodyl4","v":1}', '78f0b4e08a3a4f37ebe2e395ea186800c8196f6103a519bc697bdfb89a8b958b', 'aa90261a48f4bd53dcc4f05448d641bba1e21e5d44263bc2a307441f2a4a71e6');
INSERT INTO public.events VALUES ('sess_agrclvw76mzffnrb7mbjxodyl4', 4, 'evt_agrclvxccpu2zpqdhj643cor3y', 'run_agrclvw76obznuayy46pqtzj6e', 'node_created', 1795931169299, '{"at_ms":1795931169299,"id":"evt_agrclvxccpu2zpqdhj643cor3y","kind":{"cause":"advance","kind":"blocked_attempt","node":"node_agrclvxccm6xxjemimvsal352y","parent":"node_agrclvw76n3nxanbl74mfjk7c4","state":{"context":{"confirmed":false},"counters":{"attempts":1,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"kind":"blocked","validation":{"issues":[{"code":"OUTPUT_SCHEMA","message":"\"reproduced\" is a required property: send artifacts that match the step''s output schema","path":"/artifacts"},{"code":"OUTPUT_SCHEMA","message":"\"command\" is a required property: send artifacts that match the step''s output schema","path":"/artifacts"},{"code":"OUTPUT_SCHEMA","message":"\"observed\" is a required property: send artifacts that match the step''s output schema","path":"/artifacts"},{"code":"OUTPUT_SCHEMA","message":"\"expected\" is a required property: send artifacts that match the step''s output schema","path":"/artifacts"}]}},"rejection":null,"step":"reproduce"},"status":"blocked","step":"reproduce","type":"node_created"},"prev_hash":"aa90261a48f4bd53dcc4f05448d641bba1e21e5d44263bc2a307441f2a4a71e6","run":"run_agrclvw76obznuayy46pqtzj6e","seq":4,"session":"sess_agrclvw76mzffnrb7mbjxodyl4","v":1}', 'aa90261a48f4bd53dcc4f05448d641bba1e21e5d44263bc2a307441f2a4a71e6', '34b2b8c1fda857cdfb09a94f27cdc49bb9537f802eca814d95dfced7f8ec1b47');
INSERT INTO public.events VALUES ('sess_agrclvw76mzffnrb7mbjxodyl4', 5, 'evt_agrclvxccpefjm2osbes665iqm', 'run_agrclvw76obznuayy46pqtzj6e', 'advance_recorded', 1795931169299, '{"at_ms":1795931169299,"id":"evt_agrclvxccpefjm2osbes665iqm","kind":{"artifacts":null,"attempt":"attempt_6ivhezlngwyrjybgvhmwnwpigu","choice":null,"context_delta":null,"edge_label":null,"from":"node_agrclvw76n3nxanbl74mfjk7c4","notes":"Could not reproduce it yet.","to":"node_agrclvxccm6xxjemimvsal352y","type":"advance_recorded"},"prev_hash":"34b2b8c1fda857cdfb09a94f27cdc49bb9537f802eca814d95dfced7f8ec1b47","run":"run_agrclvw76obznuayy46pqtzj6e","seq":5,"session":"sess_agrclvw76mzffnrb7mbjxodyl4","v":1}', '34b2b8c1fda857cdfb09a94f27cdc49bb9537f802eca814d95dfced7f8ec1b47', '73fdcbfff44e0899ff1fddf840014c2dd43931db71fdf77451d7b87f814b5a68');
INSERT INTO public.events VALUES ('sess_agrclvw76mzffnrb7mbjxodyl4', 6, 'evt_agrclvxegvvozywajwcd4gji3m', 'run_agrclvw76obznuayy46pqtzj6e', 'node_created', 1795931169845, '{"at_ms":1795931169845,"id":"evt_agrclvxegvvozywajwcd4gji3m","kind":{"cause":"advance","kind":"blocked_attempt","node":"node_agrclvxegr6e5roq3ct474guvm","parent":"node_agrclvxccm6xxjemimvsal352y","state":{"context":{"confirmed":false},"counters":{"attempts":2,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"kind":"blocked","validation":{"issues":[{"code":"OUTPUT_SCHEMA","message":"\"reproduced\" is a required property: send artifacts that match the step''s output schema","path":"/artifacts"},{"code":"OUTPUT_SCHEMA","message":"\"command\" is a required property: send artifacts that match the step''s output schema","path":"/artifacts"},{"code":"OUTPUT_SCHEMA","message":"\"observed\" is a required property: send artifacts that match the step''s output schema","path":"/artifacts"},{"code":"OUTPUT_SCHEMA","message":"\"expected\" is a required property: send artifacts that match the step''s output schema","path":"/artifacts"}]}},"rejection":null,"step":"reproduce"},"status":"blocked","step":"reproduce","type":"node_created"},"prev_hash":"73fdcbfff44e0899ff1fddf840014c2dd43931db71fdf77451d7b87f814b5a68","run":"run_agrclvw76obznuayy46pqtzj6e","seq":6,"session":"sess_agrclvw76mzffnrb7mbjxodyl4","v":1}', '73fdcbfff44e0899ff1fddf840014c2dd43931db71fdf77451d7b87f814b5a68', '17b57ee5b3db695294f8a1a4f968328a96abe115a646160b61a6224f8098452f');
INSERT INTO public.events VALUES ('sess_agrclvw76mzffnrb7mbjxodyl4', 7, 'evt_agrclvxegxuidhrx42snq5g3fi', 'run_agrclvw76obznuayy46pqtzj6e', 'advance_recorded', 1795931169845, '{"at_ms":1795931169845,"id":"evt_agrclvxegxuidhrx42snq5g3fi","kind":{"artifacts":null,"attempt":"attempt_ryb6xd6l5kiwx56xxlkawzawqm","choice":null,"context_delta":null,"edge_label":null,"from":"node_agrclvxccm6xxjemimvsal352y","notes":"Could not reproduce it yet.","to":"node_agrclvxegr6e5roq3ct474guvm","type":"advance_recorded"},"prev_hash":"17b57ee5b3db695294f8a1a4f968328a96abe115a646160b61a6224f8098452f","run":"run_agrclvw76obznuayy46pqtzj6e","seq":7,"session":"sess_agrclvw76mzffnrb7mbjxodyl4","v":1}', '17b57ee5b3db695294f8a1a4f968328a96abe115a646160b61a6224f8098452f', 'eaf4ae4beb1f4b1c525fe9682ead842a4993cc472837e24829ffcc7d5d6ec069');
INSERT INTO public.events VALUES ('sess_agrclvw76mzffnrb7mbjxodyl4', 8, 'evt_agrclvxgma7nxz334efukjrade', 'run_agrclvw76obznuayy46pqtzj6e', 'node_created', 1795931170400, '{"at_ms":1795931170400,"id":"evt_agrclvxgma7nxz334efukjrade","kind":{"cause":"advance","kind":"blocked_attempt","node":"node_agrclvxglmxa3ouogm47dbqv6m","parent":"node_agrclvxegr6e5roq3ct474guvm","state":{"context":{"confirmed":false},"counters":{"attempts":3,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"code":"ATTEMPTS_EXHAUSTED","kind":"failed","message":"step `reproduce` failed its checks 3 times (max_attempts = 3); last issues: OUTPUT_SCHEMA (/artifacts), OUTPUT_SCHEMA (/artifacts), OUTPUT_SCHEMA (/artifacts), OUTPUT_SCHEMA (/artifacts)"},"rejection":null,"step":"reproduce"},"status":"failed","step":"reproduce","type":"node_created"},"prev_hash":"eaf4ae4beb1f4b1c525fe9682ead842a4993cc472837e24829ffcc7d5d6ec069","run":"run_agrclvw76obznuayy46pqtzj6e","seq":8,"session":"sess_agrclvw76mzffnrb7mbjxodyl4","v":1}', 'eaf4ae4beb1f4b1c525fe9682ead842a4993cc472837e24829ffcc7d5d6ec069', 'ca7bdd2e7d7f5f23fe54dd9b77a1b24487e17dec713cc1a1251249f66493c239');
INSERT INTO public.events VALUES ('sess_agrclvw76mzffnrb7mbjxodyl4', 9, 'evt_agrclvxgmbhawqr7njhyfw46xy', 'run_agrclvw76obznuayy46pqtzj6e', 'advance_recorded', 1795931170400, '{"at_ms":1795931170400,"id":"evt_agrclvxgmbhawqr7njhyfw46xy","kind":{"artifacts":null,"attempt":"attempt_jdantwi55fmfffvlh2byv4owgu","choice":null,"context_delta":null,"edge_label":null,"from":"node_agrclvxegr6e5roq3ct474guvm","notes":"Could not reproduce it yet.","to":"node_agrclvxglmxa3ouogm47dbqv6m","type":"advance_recorded"},"prev_hash":"ca7bdd2e7d7f5f23fe54dd9b77a1b24487e17dec713cc1a1251249f66493c239","run":"run_agrclvw76obznuayy46pqtzj6e","seq":9,"session":"sess_agrclvw76mzffnrb7mbjxodyl4","v":1}', 'ca7bdd2e7d7f5f23fe54dd9b77a1b24487e17dec713cc1a1251249f66493c239', 'bd15e9b0c2adf82afa1073fbda240832ad28325c8eb060165aac44acc6b3872f');
INSERT INTO public.events VALUES ('sess_agrclvw76mzffnrb7mbjxodyl4', 10, 'evt_agrclvxgmbpat5jldv7eh2xawy', 'run_agrclvw76obznuayy46pqtzj6e', 'run_failed', 1795931170400, '{"at_ms":1795931170400,"id":"evt_agrclvxgmbpat5jldv7eh2xawy","kind":{"code":"ATTEMPTS_EXHAUSTED","message":"step `reproduce` failed its checks 3 times (max_attempts = 3); last issues: OUTPUT_SCHEMA (/artifacts), OUTPUT_SCHEMA (/artifacts), OUTPUT_SCHEMA (/artifacts), OUTPUT_SCHEMA (/artifacts)","node":"node_agrclvxglmxa3ouogm47dbqv6m","type":"run_failed"},"prev_hash":"bd15e9b0c2adf82afa1073fbda240832ad28325c8eb060165aac44acc6b3872f","run":"run_agrclvw76obznuayy46pqtzj6e","seq":10,"session":"sess_agrclvw76mzffnrb7mbjxodyl4","v":1}', 'bd15e9b0c2adf82afa1073fbda240832ad28325c8eb060165aac44acc6b3872f', 'a731a8fe48f5837da2ad1455b8ddc15d30d917be41d4c3fe27e3cdddf2469deb');
INSERT INTO public.events VALUES ('sess_agrclvxixgm232rhxtvaivabha', 1, 'evt_agrclvxi3auotn4if5wpm2p6xi', 'run_agrclvxixg5fwulthywxrvlnoy', 'session_created', 1795931171032, '{"at_ms":1795931171032,"id":"evt_agrclvxi3auotn4if5wpm2p6xi","kind":{"git_branch":"main","git_head":"ab62eb9bb95f59009211ff398c29c2643629c972","goal":"Totals are off by one cent","title":"Totals are off by one cent","type":"session_created","workspace":"/tmp/.tmp7lKasv"},"prev_hash":"0000000000000000000000000000000000000000000000000000000000000000","run":"run_agrclvxixg5fwulthywxrvlnoy","seq":1,"session":"sess_agrclvxixgm232rhxtvaivabha","v":1}', '0000000000000000000000000000000000000000000000000000000000000000', 'ce04a0d716f2df98c73c7bde79c4cd121edf18a11215320fc8912d82ce7bf491');
INSERT INTO public.events VALUES ('sess_agrclvxixgm232rhxtvaivabha', 2, 'evt_agrclvxi3aknkxnovonw3mfqmm', 'run_agrclvxixg5fwulthywxrvlnoy', 'run_started', 1795931171032, '{"at_ms":1795931171032,"id":"evt_agrclvxi3aknkxnovonw3mfqmm","kind":{"source":"builtin:bug-investigation","type":"run_started","workflow_hash":"sha256:825a7afbfa76668de4c15d3cf0ab1ebb12be1230e220a1ef895899485297c228","workflow_id":"bug-investigation"},"prev_hash":"ce04a0d716f2df98c73c7bde79c4cd121edf18a11215320fc8912d82ce7bf491","run":"run_agrclvxixg5fwulthywxrvlnoy","seq":2,"session":"sess_agrclvxixgm232rhxtvaivabha","v":1}', 'ce04a0d716f2df98c73c7bde79c4cd121edf18a11215320fc8912d82ce7bf491', 'b325c7792ff363295542864866592dd6333a4cfadb6b61488b7ff1079ab93c7a');
INSERT INTO public.events VALUES ('sess_agrclvxixgm232rhxtvaivabha', 3, 'evt_agrclvxi3bn67jbywpec5uihxa', 'run_agrclvxixg5fwulthywxrvlnoy', 'node_created', 1795931171032, '{"at_ms":1795931171032,"id":"evt_agrclvxi3bn67jbywpec5uihxa","kind":{"cause":"start","kind":"start","node":"node_agrclvxixf5w3iacpr2xc4vhqa","parent":null,"state":{"context":{"confirmed":false},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"reproduce"},"status":"active","step":"reproduce","type":"node_created"},"prev_hash":"b325c7792ff363295542864866592dd6333a4cfadb6b61488b7ff1079ab93c7a","run":"run_agrclvxixg5fwulthywxrvlnoy","seq":3,"session":"sess_agrclvxixgm232rhxtvaivabha","v":1}', 'b325c7792ff363295542864866592dd6333a4cfadb6b61488b7ff1079ab93c7a', '0920668c71f51954cb284d2ca9e650f85c8f493eb6763e60608a36f2a65a3111');
INSERT INTO public.events VALUES ('sess_agrclvxixgm232rhxtvaivabha', 4, 'evt_agrclvxk7zirqnmg2ksy6locle', 'run_agrclvxixg5fwulthywxrvlnoy', 'node_created', 1795931171582, '{"at_ms":1795931171582,"id":"evt_agrclvxk7zirqnmg2ksy6locle","kind":{"cause":"advance","kind":"step","node":"node_agrclvxk7zncotubc36gkcglgm","parent":"node_agrclvxixf5w3iacpr2xc4vhqa","state":{"context":{"confirmed":false,"reproduction":"cargo test login"},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":1,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"hypothesize"},"status":"active","step":"hypothesize","type":"node_created"},"prev_hash":"0920668c71f51954cb284d2ca9e650f85c8f493eb6763e60608a36f2a65a3111","run":"run_agrclvxixg5fwulthywxrvlnoy","seq":4,"session":"sess_agrclvxixgm232rhxtvaivabha","v":1}', '0920668c71f51954cb284d2ca9e650f85c8f493eb6763e60608a36f2a65a3111', '97d5670516173af03418c9a4f006b455bc2331e2e603f79e4d981aa8b039f2ca');
INSERT INTO public.events VALUES ('sess_agrclvxixgm232rhxtvaivabha', 5, 'evt_agrclvxk73hmenjcwcr6lfjcmi', 'run_agrclvxixg5fwulthywxrvlnoy', 'advance_recorded', 1795931171582, '{"at_ms":1795931171582,"id":"evt_agrclvxk73hmenjcwcr6lfjcmi","kind":{"artifacts":{"command":"cargo test login","expected":"200","observed":"401","reproduced":true},"attempt":"attempt_xhxjw3msglhzd4b3m7md6aoqvy","choice":null,"context_delta":{"reproduction":"cargo test login"},"edge_label":"hypothesize","from":"node_agrclvxixf5w3iacpr2xc4vhqa","notes":"Reproduced.","to":"node_agrclvxk7zncotubc36gkcglgm","type":"advance_recorded"},"prev_hash":"97d5670516173af03418c9a4f006b455bc2331e2e603f79e4d981aa8b039f2ca","run":"run_agrclvxixg5fwulthywxrvlnoy","seq":5,"session":"sess_agrclvxixgm232rhxtvaivabha","v":1}', '97d5670516173af03418c9a4f006b455bc2331e2e603f79e4d981aa8b039f2ca', '87e9248eda0096eb5170965eb108f08142497666bf276749dd0c1e070856f0d5');
INSERT INTO public.events VALUES ('sess_agrclvxixgm232rhxtvaivabha', 6, 'evt_agrclvxno7u7tok23jlfhzwe7q', 'run_agrclvxixg5fwulthywxrvlnoy', 'node_created', 1795931172215, '{"at_ms":1795931172215,"id":"evt_agrclvxno7u7tok23jlfhzwe7q","kind":{"cause":"advance","kind":"step","node":"node_agrclvxno25m2djkmnqawqzm54","parent":"node_agrclvxk7zncotubc36gkcglgm","state":{"context":{"confirmed":false,"hypothesis":"Rounding happens per line instead of per total","reproduction":"cargo test login"},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":2,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"verify"},"status":"active","step":"verify","type":"node_created"},"prev_hash":"87e9248eda0096eb5170965eb108f08142497666bf276749dd0c1e070856f0d5","run":"run_agrclvxixg5fwulthywxrvlnoy","seq":6,"session":"sess_agrclvxixgm232rhxtvaivabha","v":1}', '87e9248eda0096eb5170965eb108f08142497666bf276749dd0c1e070856f0d5', '048098ee2c77311a0958a8bee874d9ead5f4da0813d5aea589c574d30c95deaa');
INSERT INTO public.events VALUES ('sess_agrclvxixgm232rhxtvaivabha', 7, 'evt_agrclvxno6rkzu4toq65ul4vru', 'run_agrclvxixg5fwulthywxrvlnoy', 'advance_recorded', 1795931172215, '{"at_ms":1795931172215,"id":"evt_agrclvxno6rkzu4toq65ul4vru","kind":{"artifacts":{"evidence":["src/session.rs:42"],"experiment":"log the cookie","hypothesis":"Rounding happens per line instead of per total"},"attempt":"attempt_5gbewzgdm7fh3dwzhk7smcroyq","choice":null,"context_delta":{"confirmed":false,"hypothesis":"Rounding happens per line instead of per total"},"edge_label":"verify","from":"node_agrclvxk7zncotubc36gkcglgm","notes":"Rounding happens per line instead of per total","to":"node_agrclvxno25m2djkmnqawqzm54","type":"advance_recorded"},"prev_hash":"048098ee2c77311a0958a8bee874d9ead5f4da0813d5aea589c574d30c95deaa","run":"run_agrclvxixg5fwulthywxrvlnoy","seq":7,"session":"sess_agrclvxixgm232rhxtvaivabha","v":1}', '048098ee2c77311a0958a8bee874d9ead5f4da0813d5aea589c574d30c95deaa', 'b005b187f21ed4e7e33d8b29a85eb8755e28883c64f76773bf8707b61bb6a202');
INSERT INTO public.events VALUES ('sess_agrclvxixgm232rhxtvaivabha', 8, 'evt_agrclvxpvva6ed4y66w5ffkesa', 'run_agrclvxixg5fwulthywxrvlnoy', 'node_created', 1795931172781, '{"at_ms":1795931172781,"id":"evt_agrclvxpvva6ed4y66w5ffkesa","kind":{"cause":"advance","kind":"step","node":"node_agrclvxpu7nsftwt4lekuwuoci","parent":"node_agrclvxno25m2djkmnqawqzm54","state":{"context":{"confirmed":true,"hypothesis":"Rounding happens per line instead of per total","reproduction":"cargo test login"},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":3,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"fix"},"status":"active","step":"fix","type":"node_created"},"prev_hash":"b005b187f21ed4e7e33d8b29a85eb8755e28883c64f76773bf8707b61bb6a202","run":"run_agrclvxixg5fwulthywxrvlnoy","seq":8,"session":"sess_agrclvxixgm232rhxtvaivabha","v":1}', 'b005b187f21ed4e7e33d8b29a85eb8755e28883c64f76773bf8707b61bb6a202', '8f1ae348b4d4453061411c6f6ea3306439c31cd66a4f68ee9f3d27008e08cef2');
INSERT INTO public.events VALUES ('sess_agrclvxixgm232rhxtvaivabha', 9, 'evt_agrclvxpvun4rdmcn2cs23aavy', 'run_agrclvxixg5fwulthywxrvlnoy', 'advance_recorded', 1795931172781, '{"at_ms":1795931172781,"id":"evt_agrclvxpvun4rdmcn2cs23aavy","kind":{"artifacts":{"confirmed":true,"result":"rounding the total alone gives the right sum"},"attempt":"attempt_zqgvksy24ajw5drkenrd4o6nzi","choice":null,"context_delta":{"confirmed":true},"edge_label":"confirmed","from":"node_agrclvxno25m2djkmnqawqzm54","notes":"Confirmed.","to":"node_agrclvxpu7nsftwt4lekuwuoci","type":"advance_recorded"},"prev_hash":"8f1ae348b4d4453061411c6f6ea3306439c31cd66a4f68ee9f3d27008e08cef2","run":"run_agrclvxixg5fwulthywxrvlnoy","seq":9,"session":"sess_agrclvxixgm232rhxtvaivabha","v":1}', '8f1ae348b4d4453061411c6f6ea3306439c31cd66a4f68ee9f3d27008e08cef2', '3a1160d4fa53205812b3ddc2063d0293f945e4762326a2b60fefc21b55575c55');
INSERT INTO public.events VALUES ('sess_agrclvxixgm232rhxtvaivabha', 10, 'evt_agrclvxpvulvcdmfjbtxdgpy6u', 'run_agrclvxixg5fwulthywxrvlnoy', 'checkpoint_recorded', 1795931172781, '{"at_ms":1795931172781,"id":"evt_agrclvxpvulvcdmfjbtxdgpy6u","kind":{"attempt":null,"automatic":true,"node":"node_agrclvxpu7nsftwt4lekuwuoci","notes":null,"phase":"investigate","type":"checkpoint_recorded"},"prev_hash":"3a1160d4fa53205812b3ddc2063d0293f945e4762326a2b60fefc21b55575c55","run":"run_agrclvxixg5fwulthywxrvlnoy","seq":10,"session":"sess_agrclvxixgm232rhxtvaivabha","v":1}', '3a1160d4fa53205812b3ddc2063d0293f945e4762326a2b60fefc21b55575c55', 'f6f7898f53897269f244261f674c1b152e99e605db61ce60a0a33e0de27bf06d');
INSERT INTO public.events VALUES ('sess_agrclvxixgm232rhxtvaivabha', 11, 'evt_agrclvxr32vka53aumzc4uvw7y', 'run_agrclvxixg5fwulthywxrvlnoy', 'node_created', 1795931173342, '{"at_ms":1795931173342,"id":"evt_agrclvxr32vka53aumzc4uvw7y","kind":{"cause":"advance","kind":"step","node":"node_agrclvxr3utnzqqseevqwoqcxe","parent":"node_agrclvxpu7nsftwt4lekuwuoci","state":{"context":{"confirmed":true,"hypothesis":"Rounding happens per line instead of per total","reproduction":"cargo test login"},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":4,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"review"},"status":"active","step":"review","type":"node_created"},"prev_hash":"f6f7898f53897269f244261f674c1b152e99e605db61ce60a0a33e0de27bf06d","run":"run_agrclvxixg5fwulthywxrvlnoy","seq":11,"session":"sess_agrclvxixgm232rhxtvaivabha","v":1}', 'f6f7898f53897269f244261f674c1b152e99e605db61ce60a0a33e0de27bf06d', '79c041e9ce1f14f6bb27fa0239de15bff67e3ff32711597d0cc9bb5b7238d154');
INSERT INTO public.events VALUES ('sess_agrclvyeebf2i4jmivk2taghju', 7, 'evt_agrclvyfw6ptlubqayyuwrlh6i', 'run_agrclvyeebsrh64kai7opgypwi', 'checkpoint_recorded', 1795931178423, '{"at_ms":1795931178423,"id":"evt_agrclvyfw6ptlubqayyuwrlh6i","kind":{"attempt":null,"automatic":true,"node":"node_agrclvyfw7xh4zqcimwxh4uq3q","notes":null,"phase":"understand","type":"checkpoint_recorded"},"prev_hash":"74e53969e8229e57d28ef91c4e947eccfa918451bd11407e3b1b6d78a9b68109","run":"run_agrclvyeebsrh64kai7opgypwi","seq":7,"session":"sess_agrclvyeebf2i4jmivk2taghju","v":1}', '74e53969e8229e57d28ef91c4e947eccfa918451bd11407e3b1b6d78a9b68109', '70f21569ba41036d823ec0ca474d3c6362591432a427a8688eee59738c5dbb79');
INSERT INTO public.events VALUES ('sess_agrclvxixgm232rhxtvaivabha', 12, 'evt_agrclvxr32v7agdf7rkzgxroxm', 'run_agrclvxixg5fwulthywxrvlnoy', 'advance_recorded', 1795931173342, '{"at_ms":1795931173342,"id":"evt_agrclvxr32v7agdf7rkzgxroxm","kind":{"artifacts":{"files_changed":["src/totals.rs"],"summary":"Round the total once.","tests_added":1},"attempt":"attempt_owizathlnvgc64zm7scgsrhrsa","choice":null,"context_delta":null,"edge_label":"review","from":"node_agrclvxpu7nsftwt4lekuwuoci","notes":"Fixed.","to":"node_agrclvxr3utnzqqseevqwoqcxe","type":"advance_recorded"},"prev_hash":"79c041e9ce1f14f6bb27fa0239de15bff67e3ff32711597d0cc9bb5b7238d154","run":"run_agrclvxixg5fwulthywxrvlnoy","seq":12,"session":"sess_agrclvxixgm232rhxtvaivabha","v":1}', '79c041e9ce1f14f6bb27fa0239de15bff67e3ff32711597d0cc9bb5b7238d154', '0d7736416765490c4ffeae19296636b70f985d67682cc891ac8c3dd4c088c431');
INSERT INTO public.events VALUES ('sess_agrclvxixgm232rhxtvaivabha', 13, 'evt_agrclvxr3ylqylh74oeptahhyq', 'run_agrclvxixg5fwulthywxrvlnoy', 'checkpoint_recorded', 1795931173342, '{"at_ms":1795931173342,"id":"evt_agrclvxr3ylqylh74oeptahhyq","kind":{"attempt":null,"automatic":true,"node":"node_agrclvxr3utnzqqseevqwoqcxe","notes":null,"phase":"fix","type":"checkpoint_recorded"},"prev_hash":"0d7736416765490c4ffeae19296636b70f985d67682cc891ac8c3dd4c088c431","run":"run_agrclvxixg5fwulthywxrvlnoy","seq":13,"session":"sess_agrclvxixgm232rhxtvaivabha","v":1}', '0d7736416765490c4ffeae19296636b70f985d67682cc891ac8c3dd4c088c431', '4d75f83fc9f45d16daadf21f514c06b01aae686a78bf92aff4b604b792523432');
INSERT INTO public.events VALUES ('sess_agrclvxixgm232rhxtvaivabha', 14, 'evt_agrclvxt46eoegtymkfdd3qo6i', 'run_agrclvxixg5fwulthywxrvlnoy', 'node_created', 1795931173863, '{"at_ms":1795931173863,"id":"evt_agrclvxt46eoegtymkfdd3qo6i","kind":{"cause":"advance","kind":"gate","node":"node_agrclvxt45jd3en2dnhdte23em","parent":"node_agrclvxr3utnzqqseevqwoqcxe","state":{"context":{"confirmed":true,"hypothesis":"Rounding happens per line instead of per total","reproduction":"cargo test login"},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":4,"traversals":{}},"phase":{"kind":"waiting_gate","submission":{"choice":null}},"rejection":null,"step":"review"},"status":"waiting_gate","step":"review","type":"node_created"},"prev_hash":"4d75f83fc9f45d16daadf21f514c06b01aae686a78bf92aff4b604b792523432","run":"run_agrclvxixg5fwulthywxrvlnoy","seq":14,"session":"sess_agrclvxixgm232rhxtvaivabha","v":1}', '4d75f83fc9f45d16daadf21f514c06b01aae686a78bf92aff4b604b792523432', 'db80e94d118b6a983326d7266b3961225079424351c1aebe7eaef59bd53f5b78');
INSERT INTO public.events VALUES ('sess_agrclvxixgm232rhxtvaivabha', 15, 'evt_agrclvxt44gh67ehknatrcijhu', 'run_agrclvxixg5fwulthywxrvlnoy', 'advance_recorded', 1795931173863, '{"at_ms":1795931173863,"id":"evt_agrclvxt44gh67ehknatrcijhu","kind":{"artifacts":null,"attempt":"attempt_wa7l5cja27kbaywhddxwqa7cz4","choice":null,"context_delta":null,"edge_label":null,"from":"node_agrclvxr3utnzqqseevqwoqcxe","notes":"Root cause, diff and test, for review.","to":"node_agrclvxt45jd3en2dnhdte23em","type":"advance_recorded"},"prev_hash":"db80e94d118b6a983326d7266b3961225079424351c1aebe7eaef59bd53f5b78","run":"run_agrclvxixg5fwulthywxrvlnoy","seq":15,"session":"sess_agrclvxixgm232rhxtvaivabha","v":1}', 'db80e94d118b6a983326d7266b3961225079424351c1aebe7eaef59bd53f5b78', '50c2b21af5c15e9ed26b3596df2c26887edbc767ef750cd8da2cf6f7dbdeb8b0');
INSERT INTO public.events VALUES ('sess_agrclvxvykw3azrtr4la7q5m2m', 1, 'evt_agrclvxv2vexatjsmmplq6snty', 'run_agrclvxvykaan6xl3h66rzvyei', 'session_created', 1795931174357, '{"at_ms":1795931174357,"id":"evt_agrclvxv2vexatjsmmplq6snty","kind":{"git_branch":"main","git_head":"ab62eb9bb95f59009211ff398c29c2643629c972","goal":"Audit the cache change","title":"Audit the cache change","type":"session_created","workspace":"/tmp/.tmp7lKasv"},"prev_hash":"0000000000000000000000000000000000000000000000000000000000000000","run":"run_agrclvxvykaan6xl3h66rzvyei","seq":1,"session":"sess_agrclvxvykw3azrtr4la7q5m2m","v":1}', '0000000000000000000000000000000000000000000000000000000000000000', '6df4b952a1ca03f42ba0e93af539c7adfd117c663b0710cfb6e87913fbfc6708');
INSERT INTO public.events VALUES ('sess_agrclvxvykw3azrtr4la7q5m2m', 2, 'evt_agrclvxv2x2rkhl7i5zqjvy7du', 'run_agrclvxvykaan6xl3h66rzvyei', 'run_started', 1795931174357, '{"at_ms":1795931174357,"id":"evt_agrclvxv2x2rkhl7i5zqjvy7du","kind":{"references":[{"path":"audited.yaml"}],"report_policy":{"audit_min_confidence":0.8},"source":"user:/work/wt-fixtures/crates/test-support/../../testdata/stores/postgres/home/workflows/audited.yaml","type":"run_started","workflow_hash":"sha256:51d65bdc96ccc644d656fdc88ed2ba944a15953a548ae39d51669c1f60682cf7","workflow_id":"audited"},"prev_hash":"6df4b952a1ca03f42ba0e93af539c7adfd117c663b0710cfb6e87913fbfc6708","run":"run_agrclvxvykaan6xl3h66rzvyei","seq":2,"session":"sess_agrclvxvykw3azrtr4la7q5m2m","v":1}', '6df4b952a1ca03f42ba0e93af539c7adfd117c663b0710cfb6e87913fbfc6708', '97ca677974b13e5eef2ade1576ee2046312ea0495c6fe2c551784f4e86c2592c');
INSERT INTO public.events VALUES ('sess_agrclvxvykw3azrtr4la7q5m2m', 3, 'evt_agrclvxv2v6w5k35vk52v6ntma', 'run_agrclvxvykaan6xl3h66rzvyei', 'node_created', 1795931174357, '{"at_ms":1795931174357,"id":"evt_agrclvxv2v6w5k35vk52v6ntma","kind":{"cause":"start","kind":"start","node":"node_agrclvxvyjigsntdgw6wge45l4","parent":null,"state":{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"audit"},"status":"active","step":"audit","type":"node_created"},"prev_hash":"97ca677974b13e5eef2ade1576ee2046312ea0495c6fe2c551784f4e86c2592c","run":"run_agrclvxvykaan6xl3h66rzvyei","seq":3,"session":"sess_agrclvxvykw3azrtr4la7q5m2m","v":1}', '97ca677974b13e5eef2ade1576ee2046312ea0495c6fe2c551784f4e86c2592c', '0369c58d45a7247bd08e9843a38f606ab9be39b539f537e6cf8de0fced5fb06f');
INSERT INTO public.events VALUES ('sess_agrclvxvykw3azrtr4la7q5m2m', 4, 'evt_agrclvxyahwxtd5c65w37l7fh4', 'run_agrclvxvykaan6xl3h66rzvyei', 'node_created', 1795931174913, '{"at_ms":1795931174913,"id":"evt_agrclvxyahwxtd5c65w37l7fh4","kind":{"cause":"advance","kind":"step","node":"node_agrclvxx535diuuyh6lzo3bpaa","parent":"node_agrclvxvyjigsntdgw6wge45l4","state":{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":1,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"work"},"status":"active","step":"work","type":"node_created"},"prev_hash":"0369c58d45a7247bd08e9843a38f606ab9be39b539f537e6cf8de0fced5fb06f","run":"run_agrclvxvykaan6xl3h66rzvyei","seq":4,"session":"sess_agrclvxvykw3azrtr4la7q5m2m","v":1}', '0369c58d45a7247bd08e9843a38f606ab9be39b539f537e6cf8de0fced5fb06f', '3198940a2fb83b6a52ae7ee73ef332afce3c4be9a535028a351a6ad9b14a2715');
INSERT INTO public.events VALUES ('sess_agrclvxvykw3azrtr4la7q5m2m', 5, 'evt_agrclvxyah5ya5hyz4p43l4yzy', 'run_agrclvxvykaan6xl3h66rzvyei', 'advance_recorded', 1795931174913, '{"at_ms":1795931174913,"id":"evt_agrclvxyah5ya5hyz4p43l4yzy","kind":{"artifacts":{"confidence":0.65,"model_override_reason":null,"skills_missing":[],"skills_used":[],"status":"blocked","summary":"Maybe a race in the cache","validated":true},"attempt":"attempt_5uddyqfyefhe44dbbdnlfxs4au","choice":null,"context_delta":null,"edge_label":"work","from":"node_agrclvxvyjigsntdgw6wge45l4","notes":null,"to":"node_agrclvxx535diuuyh6lzo3bpaa","type":"advance_recorded"},"prev_hash":"3198940a2fb83b6a52ae7ee73ef332afce3c4be9a535028a351a6ad9b14a2715","run":"run_agrclvxvykaan6xl3h66rzvyei","seq":5,"session":"sess_agrclvxvykw3azrtr4la7q5m2m","v":1}', '3198940a2fb83b6a52ae7ee73ef332afce3c4be9a535028a351a6ad9b14a2715', '8bce0536a07ba94ec2d16c5b032e7a3409721199be3cd8329c836a0fdbf28607');
INSERT INTO public.events VALUES ('sess_agrclvxvykw3azrtr4la7q5m2m', 6, 'evt_agrclvxyafbqda44fomynyphle', 'run_agrclvxvykaan6xl3h66rzvyei', 'report_warned', 1795931174913, '{"at_ms":1795931174913,"id":"evt_agrclvxyafbqda44fomynyphle","kind":{"downgraded":[{"confidence":0.65,"min_confidence":0.8,"path":"/artifacts","summary":"Maybe a race in the cache","validated":true}],"node":"node_agrclvxx535diuuyh6lzo3bpaa","step":"audit","type":"report_warned"},"prev_hash":"8bce0536a07ba94ec2d16c5b032e7a3409721199be3cd8329c836a0fdbf28607","run":"run_agrclvxvykaan6xl3h66rzvyei","seq":6,"session":"sess_agrclvxvykw3azrtr4la7q5m2m","v":1}', '8bce0536a07ba94ec2d16c5b032e7a3409721199be3cd8329c836a0fdbf28607', '3918d9d4646add9bbe54db7aa9334c1a87c284c54b98533a6ca42b28890908bf');
INSERT INTO public.events VALUES ('sess_agrclvxvykw3azrtr4la7q5m2m', 7, 'evt_agrclvx2f5tqvi4nu33ec5wt7m', 'run_agrclvxvykaan6xl3h66rzvyei', 'node_created', 1795931175471, '{"at_ms":1795931175471,"id":"evt_agrclvx2f5tqvi4nu33ec5wt7m","kind":{"cause":"advance","kind":"step","node":"node_agrclvx2e6azhmubv7pu6v2naa","parent":"node_agrclvxx535diuuyh6lzo3bpaa","state":{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":2,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"done"},"status":"active","step":"done","type":"node_created"},"prev_hash":"3918d9d4646add9bbe54db7aa9334c1a87c284c54b98533a6ca42b28890908bf","run":"run_agrclvxvykaan6xl3h66rzvyei","seq":7,"session":"sess_agrclvxvykw3azrtr4la7q5m2m","v":1}', '3918d9d4646add9bbe54db7aa9334c1a87c284c54b98533a6ca42b28890908bf', 'c66c8607ebad758eaa11d638a4563aa1ce90a20acd2c3a0b8d5dadd1d904c008');
INSERT INTO public.events VALUES ('sess_agrclvxvykw3azrtr4la7q5m2m', 8, 'evt_agrclvx2f4vw3eezjyc2n6sfde', 'run_agrclvxvykaan6xl3h66rzvyei', 'advance_recorded', 1795931175471, '{"at_ms":1795931175471,"id":"evt_agrclvx2f4vw3eezjyc2n6sfde","kind":{"artifacts":{"status":"pass","summary":"done"},"attempt":"attempt_vbpdia4i5ohcxfk2wrvq4mnhny","choice":null,"context_delta":null,"edge_label":"done","from":"node_agrclvxx535diuuyh6lzo3bpaa","notes":null,"to":"node_agrclvx2e6azhmubv7pu6v2naa","type":"advance_recorded"},"prev_hash":"c66c8607ebad758eaa11d638a4563aa1ce90a20acd2c3a0b8d5dadd1d904c008","run":"run_agrclvxvykaan6xl3h66rzvyei","seq":8,"session":"sess_agrclvxvykw3azrtr4la7q5m2m","v":1}', 'c66c8607ebad758eaa11d638a4563aa1ce90a20acd2c3a0b8d5dadd1d904c008', '1f9207c3a31a7bde0105d187282358a708610e504190791a4c38d0ccdf122513');
INSERT INTO public.events VALUES ('sess_agrclvxvykw3azrtr4la7q5m2m', 9, 'evt_agrclvx2f4bpmkaewz6prjyv7u', 'run_agrclvxvykaan6xl3h66rzvyei', 'report_warned', 1795931175471, '{"at_ms":1795931175471,"id":"evt_agrclvx2f4bpmkaewz6prjyv7u","kind":{"node":"node_agrclvx2e6azhmubv7pu6v2naa","step":"work","type":"report_warned","warnings":[{"code":"STATUS_REPORT","message":"`skills_used` is missing: add it (strict status reports require it): a list of skill names as strings, `[]` when there is none (rule required)","path":"/artifacts/skills_used"},{"code":"STATUS_REPORT","message":"`skills_missing` is missing: add it (strict status reports require it): a list of skill names as strings, `[]` when there is none (rule required)","path":"/artifacts/skills_missing"},{"code":"STATUS_REPORT","message":"`model_override_reason` is missing: add it (strict status reports require it): the reason as a string, or null when the model was not overridden (rule required)","path":"/artifacts/model_override_reason"}]},"prev_hash":"1f9207c3a31a7bde0105d187282358a708610e504190791a4c38d0ccdf122513","run":"run_agrclvxvykaan6xl3h66rzvyei","seq":9,"session":"sess_agrclvxvykw3azrtr4la7q5m2m","v":1}', '1f9207c3a31a7bde0105d187282358a708610e504190791a4c38d0ccdf122513', 'c022cfea53ce5d72833e86bca7db1169d49e9b4c62bcb3932a2e76b8d437a8a0');
INSERT INTO public.events VALUES ('sess_agrclvxvykw3azrtr4la7q5m2m', 10, 'evt_agrclvx4kyemh6nodysagiax54', 'run_agrclvxvykaan6xl3h66rzvyei', 'node_created', 1795931176022, '{"at_ms":1795931176022,"id":"evt_agrclvx4kyemh6nodysagiax54","kind":{"cause":"advance","kind":"step","node":"node_agrclvx4i4xh7c7qx3uddsimce","parent":"node_agrclvx2e6azhmubv7pu6v2naa","state":{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":3,"traversals":{}},"phase":{"kind":"completed"},"rejection":null,"step":"done"},"status":"completed","step":"done","type":"node_created"},"prev_hash":"c022cfea53ce5d72833e86bca7db1169d49e9b4c62bcb3932a2e76b8d437a8a0","run":"run_agrclvxvykaan6xl3h66rzvyei","seq":10,"session":"sess_agrclvxvykw3azrtr4la7q5m2m","v":1}', 'c022cfea53ce5d72833e86bca7db1169d49e9b4c62bcb3932a2e76b8d437a8a0', '909423617d4696a016d03087b74fb2f9cc17caedc7774cb2665d063a36594b7c');
INSERT INTO public.events VALUES ('sess_agrclvxvykw3azrtr4la7q5m2m', 11, 'evt_agrclvx4kznpb6cczs4pcy3jha', 'run_agrclvxvykaan6xl3h66rzvyei', 'advance_recorded', 1795931176022, '{"at_ms":1795931176022,"id":"evt_agrclvx4kznpb6cczs4pcy3jha","kind":{"artifacts":null,"attempt":"attempt_qy7sunutbw3c7vetahuhtlmfem","choice":null,"context_delta":null,"edge_label":null,"from":"node_agrclvx2e6azhmubv7pu6v2naa","notes":null,"to":"node_agrclvx4i4xh7c7qx3uddsimce","type":"advance_recorded"},"prev_hash":"909423617d4696a016d03087b74fb2f9cc17caedc7774cb2665d063a36594b7c","run":"run_agrclvxvykaan6xl3h66rzvyei","seq":11,"session":"sess_agrclvxvykw3azrtr4la7q5m2m","v":1}', '909423617d4696a016d03087b74fb2f9cc17caedc7774cb2665d063a36594b7c', '0ad13844b98fa3156425605b87d28c1757186b63846d6b65f70bde2b4811ac0d');
INSERT INTO public.events VALUES ('sess_agrclvxvykw3azrtr4la7q5m2m', 12, 'evt_agrclvx4k3x56rziey3t23wrxy', 'run_agrclvxvykaan6xl3h66rzvyei', 'run_completed', 1795931176022, '{"at_ms":1795931176022,"id":"evt_agrclvx4k3x56rziey3t23wrxy","kind":{"node":"node_agrclvx4i4xh7c7qx3uddsimce","type":"run_completed"},"prev_hash":"0ad13844b98fa3156425605b87d28c1757186b63846d6b65f70bde2b4811ac0d","run":"run_agrclvxvykaan6xl3h66rzvyei","seq":12,"session":"sess_agrclvxvykw3azrtr4la7q5m2m","v":1}', '0ad13844b98fa3156425605b87d28c1757186b63846d6b65f70bde2b4811ac0d', '531da2b86f9d08495b5526bc617ea56a4a7d30bc7fcf86a48e101ef8d49d50cf');
INSERT INTO public.events VALUES ('sess_agrclvx6nthmii4fsurgyaoxba', 1, 'evt_agrclvx6qaqao36np4kwxc2jmm', 'run_agrclvx6obiba4vdqixyewujge', 'session_created', 1795931176576, '{"at_ms":1795931176576,"id":"evt_agrclvx6qaqao36np4kwxc2jmm","kind":{"git_branch":"main","git_head":"ab62eb9bb95f59009211ff398c29c2643629c972","goal":"Review the retry change","title":"Review the retry change","type":"session_created","workspace":"/tmp/.tmp7lKasv"},"prev_hash":"0000000000000000000000000000000000000000000000000000000000000000","run":"run_agrclvx6obiba4vdqixyewujge","seq":1,"session":"sess_agrclvx6nthmii4fsurgyaoxba","v":1}', '0000000000000000000000000000000000000000000000000000000000000000', 'c2a7b6201640b922a98d1e36e70a55b8eb2a547db6b402a1f62b102546590527');
INSERT INTO public.events VALUES ('sess_agrclvx6nthmii4fsurgyaoxba', 2, 'evt_agrclvx6qddlcr3urbgbyg4aky', 'run_agrclvx6obiba4vdqixyewujge', 'run_started', 1795931176576, '{"at_ms":1795931176576,"id":"evt_agrclvx6qddlcr3urbgbyg4aky","kind":{"source":"builtin:code-review","type":"run_started","workflow_hash":"sha256:9cc2a75ce0ff3b004b25421059743ea3bd24ee6a61e45ebcec3d8ebd05a3a35b","workflow_id":"code-review"},"prev_hash":"c2a7b6201640b922a98d1e36e70a55b8eb2a547db6b402a1f62b102546590527","run":"run_agrclvx6obiba4vdqixyewujge","seq":2,"session":"sess_agrclvx6nthmii4fsurgyaoxba","v":1}', 'c2a7b6201640b922a98d1e36e70a55b8eb2a547db6b402a1f62b102546590527', 'a474bf881101a671e55695f6f9c5f5151dd797df59f3bad267e66058300fdb07');
INSERT INTO public.events VALUES ('sess_agrclvx6nthmii4fsurgyaoxba', 3, 'evt_agrclvx6qbo5fvwaeg3xtj3t34', 'run_agrclvx6obiba4vdqixyewujge', 'node_created', 1795931176576, '{"at_ms":1795931176576,"id":"evt_agrclvx6qbo5fvwaeg3xtj3t34","kind":{"cause":"start","kind":"start","node":"node_agrclvx6obi462x2xhwzpcczmy","parent":null,"state":{"context":{"blocking_findings":0,"focus":"","missing_context":""},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"scope"},"status":"active","step":"scope","type":"node_created"},"prev_hash":"a474bf881101a671e55695f6f9c5f5151dd797df59f3bad267e66058300fdb07","run":"run_agrclvx6obiba4vdqixyewujge","seq":3,"session":"sess_agrclvx6nthmii4fsurgyaoxba","v":1}', 'a474bf881101a671e55695f6f9c5f5151dd797df59f3bad267e66058300fdb07', '44e7a78825d049fa4e071c8632acd4332e44101dd67bcf1121be74539f36699e');
INSERT INTO public.events VALUES ('sess_agrclvx6nthmii4fsurgyaoxba', 4, 'evt_agrclvya4qpcm6lk5e4ix2jqzy', 'run_agrclvx6obiba4vdqixyewujge', 'node_created', 1795931177188, '{"at_ms":1795931177188,"id":"evt_agrclvya4qpcm6lk5e4ix2jqzy","kind":{"cause":"advance","kind":"step","node":"node_agrclvya4ozmi7pkgzlejs5zeq","parent":"node_agrclvx6obi462x2xhwzpcczmy","state":{"context":{"blocking_findings":0,"focus":"","missing_context":""},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":1,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"assess"},"status":"active","step":"assess","type":"node_created"},"prev_hash":"44e7a78825d049fa4e071c8632acd4332e44101dd67bcf1121be74539f36699e","run":"run_agrclvx6obiba4vdqixyewujge","seq":4,"session":"sess_agrclvx6nthmii4fsurgyaoxba","v":1}', '44e7a78825d049fa4e071c8632acd4332e44101dd67bcf1121be74539f36699e', '7f4896c5541a8af693b6f3c0298d50d74df69d08b435591f1d92ba84043b0cfc');
INSERT INTO public.events VALUES ('sess_agrclvx6nthmii4fsurgyaoxba', 5, 'evt_agrclvya4s7ho5j4vjb56si2sm', 'run_agrclvx6obiba4vdqixyewujge', 'advance_recorded', 1795931177188, '{"at_ms":1795931177188,"id":"evt_agrclvya4s7ho5j4vjb56si2sm","kind":{"artifacts":{"files":["src/upload.rs"],"intent":"Retry failed uploads"},"attempt":"attempt_ucujumcp5ggvf2won5na5prvxm","choice":null,"context_delta":null,"edge_label":"assess","from":"node_agrclvx6obi462x2xhwzpcczmy","notes":null,"to":"node_agrclvya4ozmi7pkgzlejs5zeq","type":"advance_recorded"},"prev_hash":"7f4896c5541a8af693b6f3c0298d50d74df69d08b435591f1d92ba84043b0cfc","run":"run_agrclvx6obiba4vdqixyewujge","seq":5,"session":"sess_agrclvx6nthmii4fsurgyaoxba","v":1}', '7f4896c5541a8af693b6f3c0298d50d74df69d08b435591f1d92ba84043b0cfc', 'adcfaa953cf94b85daf21cf212b6a7dc2d6320828cdccee86cb0d12ae1d16c83');
INSERT INTO public.events VALUES ('sess_agrclvx6nthmii4fsurgyaoxba', 6, 'evt_agrclvya4rgx6bzgicfokzut5i', 'run_agrclvx6obiba4vdqixyewujge', 'checkpoint_recorded', 1795931177188, '{"at_ms":1795931177188,"id":"evt_agrclvya4rgx6bzgicfokzut5i","kind":{"attempt":null,"automatic":true,"node":"node_agrclvya4ozmi7pkgzlejs5zeq","notes":null,"phase":"understand","type":"checkpoint_recorded"},"prev_hash":"adcfaa953cf94b85daf21cf212b6a7dc2d6320828cdccee86cb0d12ae1d16c83","run":"run_agrclvx6obiba4vdqixyewujge","seq":6,"session":"sess_agrclvx6nthmii4fsurgyaoxba","v":1}', 'adcfaa953cf94b85daf21cf212b6a7dc2d6320828cdccee86cb0d12ae1d16c83', '723581e0e9a7a9950e4f48dd60900d3029ab989b8d490f5c574b0f76973b3b06');
INSERT INTO public.events VALUES ('sess_agrclvyeebf2i4jmivk2taghju', 1, 'evt_agrclvyegdne4us43uyf4adomi', 'run_agrclvyeebsrh64kai7opgypwi', 'session_created', 1795931178032, '{"at_ms":1795931178032,"id":"evt_agrclvyegdne4us43uyf4adomi","kind":{"git_branch":"main","git_head":"ab62eb9bb95f59009211ff398c29c2643629c972","goal":"Review the logging change","title":"Review the logging change","type":"session_created","workspace":"/tmp/.tmp7lKasv"},"prev_hash":"0000000000000000000000000000000000000000000000000000000000000000","run":"run_agrclvyeebsrh64kai7opgypwi","seq":1,"session":"sess_agrclvyeebf2i4jmivk2taghju","v":1}', '0000000000000000000000000000000000000000000000000000000000000000', '29ac8206c69f1db089d150ded15e6e74f2459165d3ec72732792c51dc70cf35b');
INSERT INTO public.events VALUES ('sess_agrclvyeebf2i4jmivk2taghju', 2, 'evt_agrclvyegdjiv5j6pxj3eurgk4', 'run_agrclvyeebsrh64kai7opgypwi', 'run_started', 1795931178032, '{"at_ms":1795931178032,"id":"evt_agrclvyegdjiv5j6pxj3eurgk4","kind":{"source":"builtin:code-review","type":"run_started","workflow_hash":"sha256:9cc2a75ce0ff3b004b25421059743ea3bd24ee6a61e45ebcec3d8ebd05a3a35b","workflow_id":"code-review"},"prev_hash":"29ac8206c69f1db089d150ded15e6e74f2459165d3ec72732792c51dc70cf35b","run":"run_agrclvyeebsrh64kai7opgypwi","seq":2,"session":"sess_agrclvyeebf2i4jmivk2taghju","v":1}', '29ac8206c69f1db089d150ded15e6e74f2459165d3ec72732792c51dc70cf35b', 'c5fee0700d4aeffcc6d84a4001889a3b6d1ffe3ed189f4b924ade075e620c04c');
INSERT INTO public.events VALUES ('sess_agrclvyeebf2i4jmivk2taghju', 3, 'evt_agrclvyegdpws3sy5y3wwnbglm', 'run_agrclvyeebsrh64kai7opgypwi', 'node_created', 1795931178032, '{"at_ms":1795931178032,"id":"evt_agrclvyegdpws3sy5y3wwnbglm","kind":{"cause":"start","kind":"start","node":"node_agrclvyeebhtr4gwj3z5j3hzyq","parent":null,"state":{"context":{"blocking_findings":0,"focus":"","missing_context":""},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"scope"},"status":"active","step":"scope","type":"node_created"},"prev_hash":"c5fee0700d4aeffcc6d84a4001889a3b6d1ffe3ed189f4b924ade075e620c04c","run":"run_agrclvyeebsrh64kai7opgypwi","seq":3,"session":"sess_agrclvyeebf2i4jmivk2taghju","v":1}', 'c5fee0700d4aeffcc6d84a4001889a3b6d1ffe3ed189f4b924ade075e620c04c', 'a3f13c758050bffde37788613a5914044a7d7ba7f7356ff974e45dd46cb8f89d');
INSERT INTO public.events VALUES ('sess_agrclvyeebf2i4jmivk2taghju', 4, 'evt_agrclvyfqklv6rfrisbyq72fxe', 'run_agrclvyeebsrh64kai7opgypwi', 'model_turn', 1795931178369, '{"at_ms":1795931178369,"id":"evt_agrclvyfqklv6rfrisbyq72fxe","kind":{"latency_ms":110,"model":"fake-model","node":"node_agrclvyeebhtr4gwj3z5j3hzyq","request":{"fresh":true,"messages":1,"new_messages":[{"content":"You are driving one step of the workflow \"Code review\" with switchyard, which checks every step''s result.\nThe run''s goal: Review the logging change\n\n## Step: Understand the change (`scope`)\n\nYou are reviewing a change.\nChange to review: Review the logging change\n\n\n\nBefore judging anything, understand it.\n- Read the description, the linked issue and the whole diff.\n- Say in one paragraph what the change intends to do and why.\n- List the files it touches and the behaviour each one changes.\n- Note what the diff does not show but the change depends on (callers, configuration, migrations).\n\n## What to report\n\nWhen the step is done, call `complete_step` with:\n- `notes` (optional): what you did, decided and why, in Markdown.\n- `artifacts`: a JSON object of this shape, every `<fill in: …>` replaced by real values:\n```json\n{\n  \"files\": [\n    \"<fill in: string>\"\n  ],\n  \"intent\": \"<fill in: string>\"\n}\n```\n- The artifacts must satisfy this JSON Schema: `{\"properties\":{\"files\":{\"items\":{\"type\":\"string\"},\"type\":\"array\"},\"intent\":{\"minLength\":1,\"type\":\"string\"}},\"required\":[\"intent\",\"files\"],\"type\":\"object\"}`\n\n## Where the run can go next\n\n- `assess` → step `assess` (default)\n\n## How to work\n\n- Work only through the tools; answer every turn with tool calls, not with text alone.\n- Paths start at a mount: `{project-root}/…` (the project), `{output-root}/…` (this run''s output folder), `{bundle-root}/…` (the workflow''s files).\n- Call `checkpoint` to record progress on a long step.\n- Call `complete_step` once, when the step is done; if it is blocked, fix what the answer says and call it again (3 attempt(s) left).\n","role":"system"}],"tools":9},"response":{"finish_reason":"tool_calls","tool_calls":[{"arguments":"{\"path\":\"{project-root}\"}","id":"call_1_0","name":"list_files"}]},"step":"scope","tool_results":[{"call_id":"call_1_0","content":".git/COMMIT_EDITMSG\t6\n.git/HEAD\t21\n.git/config\t92\n.git/description\t73\n.git/hooks/applypatch-msg.sample\t478\n.git/hooks/commit-msg.sample\t896\n.git/hooks/fsmonitor-watchman.sample\t4726\n.git/hooks/post-update.sample\t189\n.git/hooks/pre-applypatch.sample\t424\n.git/hooks/pre-commit.sample\t1649\n.git/hooks/pre-merge-commit.sample\t416\n.git/hooks/pre-push.sample\t1374\n.git/hooks/pre-rebase.sample\t4898\n.git/hooks/pre-receive.sample\t544\n.git/hooks/prepare-commit-msg.sample\t1492\n.git/hooks/push-to-checkout.sample\t2783\n.git/hooks/sendemail-validate.sample\t2308\n.git/hooks/update.sample\t3650\n.git/index\t65\n.git/info/exclude\t240\n.git/logs/HEAD\t141\n.git/logs/refs/heads/main\t141\n.git/objects/4b/825dc642cb6eb9a060e54bf8d69288fbee4904\t15\n.git/objects/ab/62eb9bb95f59009211ff398c29c2643629c972\t112\n.git/refs/heads/main\t41","micros":23154,"name":"list_files","ok":true}],"turn":1,"type":"model_turn","usage":{"completion_tokens":5,"prompt_tokens":10}},"prev_hash":"a3f13c758050bffde37788613a5914044a7d7ba7f7356ff974e45dd46cb8f89d","run":"run_agrclvyeebsrh64kai7opgypwi","seq":4,"session":"sess_agrclvyeebf2i4jmivk2taghju","v":1}', 'a3f13c758050bffde37788613a5914044a7d7ba7f7356ff974e45dd46cb8f89d', '09407ec2e59b306973f6956dd720ee9308e2d861edf4a7fe9612362749984fcb');
INSERT INTO public.events VALUES ('sess_agrclvyeebf2i4jmivk2taghju', 5, 'evt_agrclvyfw6alk6vqxrpqmzbviu', 'run_agrclvyeebsrh64kai7opgypwi', 'node_created', 1795931178423, '{"at_ms":1795931178423,"id":"evt_agrclvyfw6alk6vqxrpqmzbviu","kind":{"cause":"advance","kind":"step","node":"node_agrclvyfw7xh4zqcimwxh4uq3q","parent":"node_agrclvyeebhtr4gwj3z5j3hzyq","state":{"context":{"blocking_findings":0,"focus":"","missing_context":""},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":1,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"assess"},"status":"active","step":"assess","type":"node_created"},"prev_hash":"09407ec2e59b306973f6956dd720ee9308e2d861edf4a7fe9612362749984fcb","run":"run_agrclvyeebsrh64kai7opgypwi","seq":5,"session":"sess_agrclvyeebf2i4jmivk2taghju","v":1}', '09407ec2e59b306973f6956dd720ee9308e2d861edf4a7fe9612362749984fcb', '45e3c7e4f69a1a613bd5c9bb40a282caff56f37bd7d5fd52509efdfd39f316e0');
INSERT INTO public.events VALUES ('sess_agrclvyeebf2i4jmivk2taghju', 6, 'evt_agrclvyfw6azfdzbcl6cs6pfaa', 'run_agrclvyeebsrh64kai7opgypwi', 'advance_recorded', 1795931178423, '{"at_ms":1795931178423,"id":"evt_agrclvyfw6azfdzbcl6cs6pfaa","kind":{"artifacts":{"files":["src/log.rs"],"intent":"Quieter logs"},"attempt":"attempt_d5d32voaxvwyqfqfioroif2kry","choice":null,"context_delta":null,"edge_label":"assess","from":"node_agrclvyeebhtr4gwj3z5j3hzyq","notes":"Scoped.","to":"node_agrclvyfw7xh4zqcimwxh4uq3q","type":"advance_recorded"},"prev_hash":"45e3c7e4f69a1a613bd5c9bb40a282caff56f37bd7d5fd52509efdfd39f316e0","run":"run_agrclvyeebsrh64kai7opgypwi","seq":6,"session":"sess_agrclvyeebf2i4jmivk2taghju","v":1}', '45e3c7e4f69a1a613bd5c9bb40a282caff56f37bd7d5fd52509efdfd39f316e0', '74e53969e8229e57d28ef91c4e947eccfa918451bd11407e3b1b6d78a9b68109');
INSERT INTO public.events VALUES ('sess_agrclvyeebf2i4jmivk2taghju', 8, 'evt_agrclvyf4qcokqddwyrxdfxbky', 'run_agrclvyeebsrh64kai7opgypwi', 'model_turn', 1795931178468, '{"at_ms":1795931178468,"id":"evt_agrclvyf4qcokqddwyrxdfxbky","kind":{"latency_ms":12,"model":"fake-model","node":"node_agrclvyeebhtr4gwj3z5j3hzyq","request":{"messages":3,"tools":9},"response":{"finish_reason":"tool_calls","tool_calls":[{"arguments":"{\"artifacts\":{\"files\":[\"src/log.rs\"],\"intent\":\"Quieter logs\"},\"notes\":\"Scoped.\"}","id":"call_2_0","name":"complete_step"}]},"step":"scope","tool_results":[{"call_id":"call_2_0","content":"{\"message\":\"The next step follows.\",\"next_step\":\"assess\",\"status\":\"accepted\"}","micros":48165,"name":"complete_step","ok":true}],"turn":2,"type":"model_turn","usage":{"completion_tokens":5,"prompt_tokens":10}},"prev_hash":"70f21569ba41036d823ec0ca474d3c6362591432a427a8688eee59738c5dbb79","run":"run_agrclvyeebsrh64kai7opgypwi","seq":8,"session":"sess_agrclvyeebf2i4jmivk2taghju","v":1}', '70f21569ba41036d823ec0ca474d3c6362591432a427a8688eee59738c5dbb79', '6989a3158f88571d2afc84800b4bf684cb73bf3b062c2f65734dbe54a1b3d0eb');
INSERT INTO public.events VALUES ('sess_agrclvyeebf2i4jmivk2taghju', 9, 'evt_agrclvygfcyfao7cziixualzve', 'run_agrclvyeebsrh64kai7opgypwi', 'node_created', 1795931178536, '{"at_ms":1795931178536,"id":"evt_agrclvygfcyfao7cziixualzve","kind":{"cause":"advance","kind":"step","node":"node_agrclvygfcdeiecuwprcckczq4","parent":"node_agrclvyfw7xh4zqcimwxh4uq3q","state":{"context":{"blocking_findings":0,"focus":"","missing_context":""},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":2,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"decide"},"status":"active","step":"decide","type":"node_created"},"prev_hash":"6989a3158f88571d2afc84800b4bf684cb73bf3b062c2f65734dbe54a1b3d0eb","run":"run_agrclvyeebsrh64kai7opgypwi","seq":9,"session":"sess_agrclvyeebf2i4jmivk2taghju","v":1}', '6989a3158f88571d2afc84800b4bf684cb73bf3b062c2f65734dbe54a1b3d0eb', 'cf53cde405d3448c4be8cda63aaabc7259a0163af8681d0e8f1adaf8e0db1f70');
INSERT INTO public.events VALUES ('sess_agrclvyeebf2i4jmivk2taghju', 10, 'evt_agrclvygfacoeyr72nrcikc7se', 'run_agrclvyeebsrh64kai7opgypwi', 'advance_recorded', 1795931178536, '{"at_ms":1795931178536,"id":"evt_agrclvygfacoeyr72nrcikc7se","kind":{"artifacts":{"findings":[]},"attempt":"attempt_mm4gohaugixhuiizmzyw7zoj5a","choice":null,"context_delta":{"blocking_findings":0},"edge_label":"decide","from":"node_agrclvyfw7xh4zqcimwxh4uq3q","notes":"No findings.","to":"node_agrclvygfcdeiecuwprcckczq4","type":"advance_recorded"},"prev_hash":"cf53cde405d3448c4be8cda63aaabc7259a0163af8681d0e8f1adaf8e0db1f70","run":"run_agrclvyeebsrh64kai7opgypwi","seq":10,"session":"sess_agrclvyeebf2i4jmivk2taghju","v":1}', 'cf53cde405d3448c4be8cda63aaabc7259a0163af8681d0e8f1adaf8e0db1f70', '19c550a64a55a02912e32d92314af2d2b1dc91c208f2a0cf7e7f1e301bf5149c');
INSERT INTO public.events VALUES ('sess_agrclvyeebf2i4jmivk2taghju', 11, 'evt_agrclvygkmfitggt7zmtiltuw4', 'run_agrclvyeebsrh64kai7opgypwi', 'model_turn', 1795931178579, '{"at_ms":1795931178579,"id":"evt_agrclvygkmfitggt7zmtiltuw4","kind":{"latency_ms":11,"model":"fake-model","node":"node_agrclvyfw7xh4zqcimwxh4uq3q","request":{"messages":6,"new_messages":[{"content":"You are driving one step of the workflow \"Code review\" with switchyard, which checks every step''s result.\nThe run''s goal: Review the logging change\n\n## Step: Assess the change (`assess`)\n\nAssess the change: Review the logging change\n\n\nCheck, in this order:\n1. Correctness: edge cases, error handling, concurrency, off-by-one, null and empty inputs.\n2. Tests: is the new behaviour tested, would the tests fail without the change?\n3. Security: input validation, injection, secrets, permissions.\n4. Compatibility: public APIs, stored data, configuration.\n5. Clarity: names, comments that explain why, dead code.\n\nRecord each finding with a severity: blocker (must not merge), major (must fix before merge), minor, or nit.\nCite the file and line; suggest a concrete fix.\nSet the context variable `blocking_findings` to the number of blocker and major findings.\n\n## What to report\n\nWhen the step is done, call `complete_step` with:\n- `notes` (required): what you did, decided and why, in Markdown.\n- `artifacts`: a JSON object of this shape, every `<fill in: …>` replaced by real values:\n```json\n{\n  \"findings\": [\n    {\n      \"file\": \"<fill in: string>\",\n      \"message\": \"<fill in: string>\",\n      \"severity\": \"<fill in: one of blocker, major, minor, nit>\"\n    }\n  ]\n}\n```\n- The artifacts must satisfy this JSON Schema: `{\"properties\":{\"findings\":{\"items\":{\"properties\":{\"file\":{\"type\":\"string\"},\"line\":{\"minimum\":1,\"type\":\"integer\"},\"message\":{\"minLength\":1,\"type\":\"string\"},\"severity\":{\"enum\":[\"blocker\",\"major\",\"minor\",\"nit\"]},\"suggestion\":{\"type\":\"string\"}},\"required\":[\"severity\",\"file\",\"message\"],\"type\":\"object\"},\"type\":\"array\"}},\"required\":[\"findings\"],\"type\":\"object\"}`\n\n## Where the run can go next\n\n- `decide` → step `decide` (default)\n\n## How to work\n\n- Work only through the tools; answer every turn with tool calls, not with text alone.\n- Paths start at a mount: `{project-root}/…` (the project), `{output-root}/…` (this run''s output folder), `{bundle-root}/…` (the workflow''s files).\n- Call `checkpoint` to record progress on a long step.\n- Call `complete_step` once, when the step is done; if it is blocked, fix what the answer says and call it again (3 attempt(s) left).\n","role":"system"},{"content":"The previous step is done. The run is now at step `assess` (Assess the change): the system prompt describes it.","role":"user"}],"tools":9},"response":{"finish_reason":"tool_calls","tool_calls":[{"arguments":"{\"artifacts\":{\"findings\":[]},\"context\":{\"blocking_findings\":0},\"notes\":\"No findings.\"}","id":"call_3_0","name":"complete_step"}]},"step":"assess","tool_results":[{"call_id":"call_3_0","content":"{\"message\":\"The next step follows.\",\"next_step\":\"decide\",\"status\":\"accepted\"}","micros":44829,"name":"complete_step","ok":true}],"turn":3,"type":"model_turn","usage":{"completion_tokens":5,"prompt_tokens":10}},"prev_hash":"19c550a64a55a02912e32d92314af2d2b1dc91c208f2a0cf7e7f1e301bf5149c","run":"run_agrclvyeebsrh64kai7opgypwi","seq":11,"session":"sess_agrclvyeebf2i4jmivk2taghju","v":1}', '19c550a64a55a02912e32d92314af2d2b1dc91c208f2a0cf7e7f1e301bf5149c', 'fa14076f0aa0b178fa547779c4def239a2db43562e71162b54037f6424742c6f');
INSERT INTO public.events VALUES ('sess_agrclvyeebf2i4jmivk2taghju', 12, 'evt_agrclvygrd5qjnftup4n5kwtjq', 'run_agrclvyeebsrh64kai7opgypwi', 'node_created', 1795931178632, '{"at_ms":1795931178632,"id":"evt_agrclvygrd5qjnftup4n5kwtjq","kind":{"cause":"advance","kind":"step","node":"node_agrclvygq7dlr2l2uwlrcdhoye","parent":"node_agrclvygfcdeiecuwprcckczq4","state":{"context":{"blocking_findings":0,"focus":"","missing_context":""},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":3,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"approve"},"status":"active","step":"approve","type":"node_created"},"prev_hash":"fa14076f0aa0b178fa547779c4def239a2db43562e71162b54037f6424742c6f","run":"run_agrclvyeebsrh64kai7opgypwi","seq":12,"session":"sess_agrclvyeebf2i4jmivk2taghju","v":1}', 'fa14076f0aa0b178fa547779c4def239a2db43562e71162b54037f6424742c6f', '837b112cd09fae6fde86d0c7ecf1f22cf4e1ef20e164b860a05311f1e86e7990');
INSERT INTO public.events VALUES ('sess_agrclvyeebf2i4jmivk2taghju', 13, 'evt_agrclvygra5wb4kwgy4vykcs5q', 'run_agrclvyeebsrh64kai7opgypwi', 'advance_recorded', 1795931178632, '{"at_ms":1795931178632,"id":"evt_agrclvygra5wb4kwgy4vykcs5q","kind":{"artifacts":null,"attempt":"attempt_dve5hj6wu5m764voqif635dr5q","choice":null,"context_delta":null,"edge_label":"approve","from":"node_agrclvygfcdeiecuwprcckczq4","notes":"Step decide done.","to":"node_agrclvygq7dlr2l2uwlrcdhoye","type":"advance_recorded"},"prev_hash":"837b112cd09fae6fde86d0c7ecf1f22cf4e1ef20e164b860a05311f1e86e7990","run":"run_agrclvyeebsrh64kai7opgypwi","seq":13,"session":"sess_agrclvyeebf2i4jmivk2taghju","v":1}', '837b112cd09fae6fde86d0c7ecf1f22cf4e1ef20e164b860a05311f1e86e7990', 'c882347408051559c1a5f9c548db16b2d9d48fd9dcd5b0add12a753edd242775');
INSERT INTO public.events VALUES ('sess_agrclvyeebf2i4jmivk2taghju', 14, 'evt_agrclvygrczvrvseezgfqg5i2q', 'run_agrclvyeebsrh64kai7opgypwi', 'checkpoint_recorded', 1795931178632, '{"at_ms":1795931178632,"id":"evt_agrclvygrczvrvseezgfqg5i2q","kind":{"attempt":null,"automatic":true,"node":"node_agrclvygq7dlr2l2uwlrcdhoye","notes":null,"phase":"review","type":"checkpoint_recorded"},"prev_hash":"c882347408051559c1a5f9c548db16b2d9d48fd9dcd5b0add12a753edd242775","run":"run_agrclvyeebsrh64kai7opgypwi","seq":14,"session":"sess_agrclvyeebf2i4jmivk2taghju","v":1}', 'c882347408051559c1a5f9c548db16b2d9d48fd9dcd5b0add12a753edd242775', 'eeda28694da22810d7a93d98bb92d3128f4cd6230aa3a2f986cad50ce31c2300');
INSERT INTO public.events VALUES ('sess_agrclvyeebf2i4jmivk2taghju', 15, 'evt_agrclvygvv53douoyeru6cpk24', 'run_agrclvyeebsrh64kai7opgypwi', 'model_turn', 1795931178669, '{"at_ms":1795931178669,"id":"evt_agrclvygvv53douoyeru6cpk24","kind":{"latency_ms":5,"model":"fake-model","node":"node_agrclvygfcdeiecuwprcckczq4","request":{"messages":9,"new_messages":[{"content":"You are driving one step of the workflow \"Code review\" with switchyard, which checks every step''s result.\nThe run''s goal: Review the logging change\n\n## Step: Decide (`decide`)\n\nDecide the outcome of the review of: Review the logging change\nBlocker and major findings: 0\n\nThe outcome follows from the context:\n- if the change cannot be judged without information you do not have, set the context variable `missing_context` to what is missing, and the review goes back to understanding the change;\n- otherwise, with no blocker or major finding the review approves, and with at least one it requests changes.\n\n## What to report\n\nWhen the step is done, call `complete_step` with:\n- `notes` (optional): what you did, decided and why, in Markdown.\n\n## Where the run can go next\n\n- `needs-context` → step `scope`, when the change cannot be judged without more context, sends the run back to replan\n- `approve` → step `approve`, when no blocker or major finding remains\n- `request-changes` → step `request-changes` (default), when at least one blocker or major finding remains\n\n## How to work\n\n- Work only through the tools; answer every turn with tool calls, not with text alone.\n- Paths start at a mount: `{project-root}/…` (the project), `{output-root}/…` (this run''s output folder), `{bundle-root}/…` (the workflow''s files).\n- Call `checkpoint` to record progress on a long step.\n- Call `complete_step` once, when the step is done; if it is blocked, fix what the answer says and call it again (3 attempt(s) left).\n","role":"system"},{"content":"The previous step is done. The run is now at step `decide` (Decide): the system prompt describes it.","role":"user"}],"tools":9},"response":{"finish_reason":"tool_calls","tool_calls":[{"arguments":"{\"notes\":\"Step decide done.\"}","id":"call_4_0","name":"complete_step"}]},"step":"decide","tool_results":[{"call_id":"call_4_0","content":"{\"message\":\"The next step follows.\",\"next_step\":\"approve\",\"status\":\"accepted\"}","micros":36409,"name":"complete_step","ok":true}],"turn":4,"type":"model_turn","usage":{"completion_tokens":5,"prompt_tokens":10}},"prev_hash":"eeda28694da22810d7a93d98bb92d3128f4cd6230aa3a2f986cad50ce31c2300","run":"run_agrclvyeebsrh64kai7opgypwi","seq":15,"session":"sess_agrclvyeebf2i4jmivk2taghju","v":1}', 'eeda28694da22810d7a93d98bb92d3128f4cd6230aa3a2f986cad50ce31c2300', '12d2fae1adb874709459de221a3b2aa75977c7c2a9d37f7cde8f19a3826588a6');
INSERT INTO public.events VALUES ('sess_agrclvyeebf2i4jmivk2taghju', 16, 'evt_agrclvyg5godil6kjztqobsxim', 'run_agrclvyeebsrh64kai7opgypwi', 'node_created', 1795931178729, '{"at_ms":1795931178729,"id":"evt_agrclvyg5godil6kjztqobsxim","kind":{"cause":"advance","kind":"step","node":"node_agrclvyg5e7biikseaa52pzb3y","parent":"node_agrclvygq7dlr2l2uwlrcdhoye","state":{"context":{"blocking_findings":0,"focus":"","missing_context":""},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":4,"traversals":{}},"phase":{"kind":"completed"},"rejection":null,"step":"approve"},"status":"completed","step":"approve","type":"node_created"},"prev_hash":"12d2fae1adb874709459de221a3b2aa75977c7c2a9d37f7cde8f19a3826588a6","run":"run_agrclvyeebsrh64kai7opgypwi","seq":16,"session":"sess_agrclvyeebf2i4jmivk2taghju","v":1}', '12d2fae1adb874709459de221a3b2aa75977c7c2a9d37f7cde8f19a3826588a6', '5ba3910677b6b970b13f1de7c26a443cf38e240cd61f80b0a09759616293c3e3');
INSERT INTO public.events VALUES ('sess_agrclvyeebf2i4jmivk2taghju', 17, 'evt_agrclvyg5ej52rnx57uvqv7gby', 'run_agrclvyeebsrh64kai7opgypwi', 'advance_recorded', 1795931178729, '{"at_ms":1795931178729,"id":"evt_agrclvyg5ej52rnx57uvqv7gby","kind":{"artifacts":{"comment":"Looks good."},"attempt":"attempt_6y5mn7sqwovzdhmgfpgqqoq4iu","choice":null,"context_delta":null,"edge_label":null,"from":"node_agrclvygq7dlr2l2uwlrcdhoye","notes":"Approved.","to":"node_agrclvyg5e7biikseaa52pzb3y","type":"advance_recorded"},"prev_hash":"5ba3910677b6b970b13f1de7c26a443cf38e240cd61f80b0a09759616293c3e3","run":"run_agrclvyeebsrh64kai7opgypwi","seq":17,"session":"sess_agrclvyeebf2i4jmivk2taghju","v":1}', '5ba3910677b6b970b13f1de7c26a443cf38e240cd61f80b0a09759616293c3e3', 'd8242f12fc6fa70fdff18ddbf4a381c715f73fa25064138ebec4454d24ddbf3d');
INSERT INTO public.events VALUES ('sess_agrclvyeebf2i4jmivk2taghju', 18, 'evt_agrclvyg5ggwqkqqc35uqch2qa', 'run_agrclvyeebsrh64kai7opgypwi', 'checkpoint_recorded', 1795931178729, '{"at_ms":1795931178729,"id":"evt_agrclvyg5ggwqkqqc35uqch2qa","kind":{"attempt":null,"automatic":true,"node":"node_agrclvyg5e7biikseaa52pzb3y","notes":null,"phase":"report","type":"checkpoint_recorded"},"prev_hash":"d8242f12fc6fa70fdff18ddbf4a381c715f73fa25064138ebec4454d24ddbf3d","run":"run_agrclvyeebsrh64kai7opgypwi","seq":18,"session":"sess_agrclvyeebf2i4jmivk2taghju","v":1}', 'd8242f12fc6fa70fdff18ddbf4a381c715f73fa25064138ebec4454d24ddbf3d', '6c2a8b810c7eb98223e5c767d901764ad21fa78ce098298a008d91386f3299a7');
INSERT INTO public.events VALUES ('sess_agrclvyeebf2i4jmivk2taghju', 19, 'evt_agrclvyg5evgzsyrto7cp4cmgm', 'run_agrclvyeebsrh64kai7opgypwi', 'run_completed', 1795931178729, '{"at_ms":1795931178729,"id":"evt_agrclvyg5evgzsyrto7cp4cmgm","kind":{"node":"node_agrclvyg5e7biikseaa52pzb3y","type":"run_completed"},"prev_hash":"6c2a8b810c7eb98223e5c767d901764ad21fa78ce098298a008d91386f3299a7","run":"run_agrclvyeebsrh64kai7opgypwi","seq":19,"session":"sess_agrclvyeebf2i4jmivk2taghju","v":1}', '6c2a8b810c7eb98223e5c767d901764ad21fa78ce098298a008d91386f3299a7', '22cb63ba4017c9ca4193f1fa6f1d1de9b0f9be388b7fa9729052fa74f4d0e387');
INSERT INTO public.events VALUES ('sess_agrclvyeebf2i4jmivk2taghju', 20, 'evt_agrclvyhbl7xhkla7bmwbejcai', 'run_agrclvyeebsrh64kai7opgypwi', 'model_turn', 1795931178762, '{"at_ms":1795931178762,"id":"evt_agrclvyhbl7xhkla7bmwbejcai","kind":{"latency_ms":10,"model":"fake-model","node":"node_agrclvygq7dlr2l2uwlrcdhoye","request":{"messages":12,"new_messages":[{"content":"You are driving one step of the workflow \"Code review\" with switchyard, which checks every step''s result.\nThe run''s goal: Review the logging change\n\n## Step: Write the approval (`approve`)\n\nWrite the approval comment for: Review the logging change\nSay what you checked, what you liked, and list the minor findings and nits as optional suggestions.\nKeep it short and specific.\n\n## What to report\n\nWhen the step is done, call `complete_step` with:\n- `notes` (required): what you did, decided and why, in Markdown.\n- `artifacts`: a JSON object of this shape, every `<fill in: …>` replaced by real values:\n```json\n{\n  \"comment\": \"<fill in: string>\"\n}\n```\n- The artifacts must satisfy this JSON Schema: `{\"properties\":{\"comment\":{\"minLength\":1,\"type\":\"string\"}},\"required\":[\"comment\"],\"type\":\"object\"}`\n\nThis is the last step: completing it completes the run.\n\n## How to work\n\n- Work only through the tools; answer every turn with tool calls, not with text alone.\n- Paths start at a mount: `{project-root}/…` (the project), `{output-root}/…` (this run''s output folder), `{bundle-root}/…` (the workflow''s files).\n- Call `checkpoint` to record progress on a long step.\n- Call `complete_step` once, when the step is done; if it is blocked, fix what the answer says and call it again (3 attempt(s) left).\n","role":"system"},{"content":"The previous step is done. The run is now at step `approve` (Write the approval): the system prompt describes it.","role":"user"}],"tools":9},"response":{"finish_reason":"tool_calls","tool_calls":[{"arguments":"{\"artifacts\":{\"comment\":\"Looks good.\"},\"notes\":\"Approved.\"}","id":"call_5_0","name":"complete_step"}]},"step":"approve","tool_results":[{"call_id":"call_5_0","content":"{\"message\":\"The run is complete.\",\"next_step\":null,\"status\":\"accepted\"}","micros":36744,"name":"complete_step","ok":true}],"turn":5,"type":"model_turn","usage":{"completion_tokens":5,"prompt_tokens":10}},"prev_hash":"22cb63ba4017c9ca4193f1fa6f1d1de9b0f9be388b7fa9729052fa74f4d0e387","run":"run_agrclvyeebsrh64kai7opgypwi","seq":20,"session":"sess_agrclvyeebf2i4jmivk2taghju","v":1}', '22cb63ba4017c9ca4193f1fa6f1d1de9b0f9be388b7fa9729052fa74f4d0e387', '79fb0c0fc439d65c22864f1c334b7ae6b0412d25b35fdd7311ef27906411dc71');


--
-- Data for Name: heads; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.heads VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 33, 'fe042fb01ed9f977bd8178cd9adba2a8059d3fd73f23ed7234dca7f3e48c1ec1');
INSERT INTO public.heads VALUES ('sess_agrclvyeebf2i4jmivk2taghju', 20, '79fb0c0fc439d65c22864f1c334b7ae6b0412d25b35fdd7311ef27906411dc71');
INSERT INTO public.heads VALUES ('sess_agrclvw76mzffnrb7mbjxodyl4', 10, 'a731a8fe48f5837da2ad1455b8ddc15d30d917be41d4c3fe27e3cdddf2469deb');
INSERT INTO public.heads VALUES ('sess_agrclvvewpyhre4hsy4thdrboa', 20, '2b20253c2bc1aa6af233f49c4cc4b96f66bf63c9a83b8bd7bbb151c462f1c53a');
INSERT INTO public.heads VALUES ('sess_agrclvxixgm232rhxtvaivabha', 15, '50c2b21af5c15e9ed26b3596df2c26887edbc767ef750cd8da2cf6f7dbdeb8b0');
INSERT INTO public.heads VALUES ('sess_agrclvxvykw3azrtr4la7q5m2m', 12, '531da2b86f9d08495b5526bc617ea56a4a7d30bc7fcf86a48e101ef8d49d50cf');
INSERT INTO public.heads VALUES ('sess_agrclvx6nthmii4fsurgyaoxba', 6, '723581e0e9a7a9950e4f48dd60900d3029ab989b8d490f5c574b0f76973b3b06');


--
-- Data for Name: nodes; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.nodes VALUES ('node_agrclvvewmkyp2r4inekgzqae4', 'run_agrclvvewo7uiu2vqci3oioame', 'sess_agrclvvewpyhre4hsy4thdrboa', NULL, 'start', 'start', 'plan', 'active', '{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"plan"}', 1, 3, 1795931153620);
INSERT INTO public.nodes VALUES ('node_agrclvvgzjfg5j7mpv3ze6t6sq', 'run_agrclvvewo7uiu2vqci3oioame', 'sess_agrclvvewpyhre4hsy4thdrboa', 'node_agrclvvewmkyp2r4inekgzqae4', 'gate', 'advance', 'plan', 'waiting_gate', '{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"kind":"waiting_gate","submission":{"choice":null}},"rejection":null,"step":"plan"}', 1, 4, 1795931154122);
INSERT INTO public.nodes VALUES ('node_agrclvvjgunjabimkeiducclca', 'run_agrclvvewo7uiu2vqci3oioame', 'sess_agrclvvewpyhre4hsy4thdrboa', 'node_agrclvvgzjfg5j7mpv3ze6t6sq', 'decision', 'advance', 'plan', 'active', '{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":1,"steps_completed":0,"traversals":{}},"phase":{"kind":"pending"},"rejection":"The plan has no tests","step":"plan"}', 1, 6, 1795931154741);
INSERT INTO public.nodes VALUES ('node_agrclvvlpfhzid5rsa3jptpqve', 'run_agrclvvewo7uiu2vqci3oioame', 'sess_agrclvvewpyhre4hsy4thdrboa', 'node_agrclvvjgunjabimkeiducclca', 'gate', 'advance', 'plan', 'waiting_gate', '{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":1,"steps_completed":0,"traversals":{}},"phase":{"kind":"waiting_gate","submission":{"choice":null}},"rejection":"The plan has no tests","step":"plan"}', 1, 8, 1795931155321);
INSERT INTO public.nodes VALUES ('node_agrclvvns5jnut7frj7572lldm', 'run_agrclvvewo7uiu2vqci3oioame', 'sess_agrclvvewpyhre4hsy4thdrboa', 'node_agrclvvlpfhzid5rsa3jptpqve', 'decision', 'advance', 'implement', 'active', '{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":1,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"implement"}', 1, 10, 1795931155863);
INSERT INTO public.nodes VALUES ('node_agrclvvpvmegh3oxttoz7v7efm', 'run_agrclvvewo7uiu2vqci3oioame', 'sess_agrclvvewpyhre4hsy4thdrboa', 'node_agrclvvns5jnut7frj7572lldm', 'blocked_attempt', 'advance', 'implement', 'blocked', '{"context":{},"counters":{"attempts":1,"cycles":0,"replans":0,"revisions":0,"steps_completed":1,"traversals":{}},"phase":{"kind":"blocked","validation":{"issues":[{"code":"NOTES_REQUIRED","message":"step `implement` requires notes: send a short markdown summary of what you did","path":"notes"}]}},"rejection":null,"step":"implement"}', 1, 12, 1795931156395);
INSERT INTO public.nodes VALUES ('node_agrclvvrxglo6yyxchcq5kb47m', 'run_agrclvvewo7uiu2vqci3oioame', 'sess_agrclvvewpyhre4hsy4thdrboa', 'node_agrclvvpvmegh3oxttoz7v7efm', 'step', 'advance', 'review', 'active', '{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":2,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"review"}', 1, 14, 1795931156921);
INSERT INTO public.nodes VALUES ('node_agrclvvtz2sgn56wmdopjpnxae', 'run_agrclvvewo7uiu2vqci3oioame', 'sess_agrclvvewpyhre4hsy4thdrboa', 'node_agrclvvrxglo6yyxchcq5kb47m', 'gate', 'advance', 'review', 'waiting_gate', '{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":2,"traversals":{}},"phase":{"kind":"waiting_gate","submission":{"choice":"close"}},"rejection":null,"step":"review"}', 1, 16, 1795931157454);
INSERT INTO public.nodes VALUES ('node_agrclvvxtofjtijw7pwhvgthbq', 'run_agrclvvewo7uiu2vqci3oioame', 'sess_agrclvvewpyhre4hsy4thdrboa', 'node_agrclvvtz2sgn56wmdopjpnxae', 'decision', 'advance', 'review', 'completed', '{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":3,"traversals":{}},"phase":{"kind":"completed"},"rejection":null,"step":"review"}', 0, 18, 1795931158427);
INSERT INTO public.nodes VALUES ('node_agrclvvzqm3nszvjrtirnsnpge', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'sess_agrclvvzqo2xt4bca5px5f42ze', NULL, 'start', 'start', 'plan', 'active', '{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"plan"}', 1, 3, 1795931158931);
INSERT INTO public.nodes VALUES ('node_agrclvv3mxq3lyr5ey7dwb53py', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvvzqm3nszvjrtirnsnpge', 'gate', 'advance', 'plan', 'waiting_gate', '{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"kind":"waiting_gate","submission":{"choice":null}},"rejection":null,"step":"plan"}', 1, 4, 1795931159398);
INSERT INTO public.nodes VALUES ('node_agrclvv5ctnxm7tv3wexqmh3t4', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvv3mxq3lyr5ey7dwb53py', 'decision', 'advance', 'plan', 'active', '{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":1,"steps_completed":0,"traversals":{}},"phase":{"kind":"pending"},"rejection":"Rejection 1: too vague","step":"plan"}', 1, 6, 1795931159828);
INSERT INTO public.nodes VALUES ('node_agrclvv7dsksduehid5hhruoua', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvv5ctnxm7tv3wexqmh3t4', 'gate', 'advance', 'plan', 'waiting_gate', '{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":1,"steps_completed":0,"traversals":{}},"phase":{"kind":"waiting_gate","submission":{"choice":null}},"rejection":"Rejection 1: too vague","step":"plan"}', 1, 8, 1795931160349);
INSERT INTO public.nodes VALUES ('node_agrclvwbcdgwktct2zng2kq4hu', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvv7dsksduehid5hhruoua', 'decision', 'advance', 'plan', 'active', '{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":2,"steps_completed":0,"traversals":{}},"phase":{"kind":"pending"},"rejection":"Rejection 2: too vague","step":"plan"}', 1, 10, 1795931160848);
INSERT INTO public.nodes VALUES ('node_agrclvwdmx5jiqvm3lse62w4j4', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvwbcdgwktct2zng2kq4hu', 'gate', 'advance', 'plan', 'waiting_gate', '{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":2,"steps_completed":0,"traversals":{}},"phase":{"kind":"waiting_gate","submission":{"choice":null}},"rejection":"Rejection 2: too vague","step":"plan"}', 1, 12, 1795931161446);
INSERT INTO public.nodes VALUES ('node_agrclvwfrh4vaieaoilargbqmq', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvwdmx5jiqvm3lse62w4j4', 'decision', 'advance', 'plan', 'active', '{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":3,"steps_completed":0,"traversals":{}},"phase":{"kind":"pending"},"rejection":"Rejection 3: too vague","step":"plan"}', 1, 14, 1795931161993);
INSERT INTO public.nodes VALUES ('node_agrclvwhrewb4cptrg3ljy7cbe', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvwfrh4vaieaoilargbqmq', 'gate', 'advance', 'plan', 'waiting_gate', '{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":3,"steps_completed":0,"traversals":{}},"phase":{"kind":"waiting_gate","submission":{"choice":null}},"rejection":"Rejection 3: too vague","step":"plan"}', 1, 16, 1795931162505);
INSERT INTO public.nodes VALUES ('node_agrclvxvyjigsntdgw6wge45l4', 'run_agrclvxvykaan6xl3h66rzvyei', 'sess_agrclvxvykw3azrtr4la7q5m2m', NULL, 'start', 'start', 'audit', 'active', '{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"audit"}', 1, 3, 1795931174357);
INSERT INTO public.nodes VALUES ('node_agrclvwjraayu6lvntvt3qfxzi', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvwhrewb4cptrg3ljy7cbe', 'decision', 'advance', 'plan', 'waiting_for_human_decision', '{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":4,"steps_completed":0,"traversals":{}},"phase":{"kind":"waiting_for_human_decision","options":["accept","revise","stop"],"reason":"revision_limit","submission":{"choice":null}},"rejection":"Rejection 4: too vague","step":"plan"}', 1, 18, 1795931163016);
INSERT INTO public.nodes VALUES ('node_agrclvwlo5su2wkmz4vdkpnno4', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvwjraayu6lvntvt3qfxzi', 'decision', 'advance', 'plan', 'active', '{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"kind":"pending"},"rejection":"Rejection 4: too vague","step":"plan"}', 1, 20, 1795931163511);
INSERT INTO public.nodes VALUES ('node_agrclvwnuuicf6ptrtbx22ncta', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvwlo5su2wkmz4vdkpnno4', 'gate', 'advance', 'plan', 'waiting_gate', '{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"kind":"waiting_gate","submission":{"choice":null}},"rejection":"Rejection 4: too vague","step":"plan"}', 1, 22, 1795931164070);
INSERT INTO public.nodes VALUES ('node_agrclvwrpsazh3nm72ju2l27gu', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvwpqw7yokcrmdfi35lx2u', 'step', 'advance', 'review', 'active', '{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":2,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"review"}', 0, 26, 1795931165053);
INSERT INTO public.nodes VALUES ('node_agrclvwpqw7yokcrmdfi35lx2u', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvwnuuicf6ptrtbx22ncta', 'decision', 'advance', 'implement', 'active', '{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":1,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"implement"}', 2, 24, 1795931164549);
INSERT INTO public.nodes VALUES ('node_agrclvwyfb6vhudru6vuva3x7u', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvwpqw7yokcrmdfi35lx2u', 'step', 'fork', 'review', 'active', '{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":2,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"review"}', 0, 29, 1795931166760);
INSERT INTO public.nodes VALUES ('node_agrclvw76n3nxanbl74mfjk7c4', 'run_agrclvw76obznuayy46pqtzj6e', 'sess_agrclvw76mzffnrb7mbjxodyl4', NULL, 'start', 'start', 'reproduce', 'active', '{"context":{"confirmed":false},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"reproduce"}', 1, 3, 1795931168771);
INSERT INTO public.nodes VALUES ('node_agrclvxccm6xxjemimvsal352y', 'run_agrclvw76obznuayy46pqtzj6e', 'sess_agrclvw76mzffnrb7mbjxodyl4', 'node_agrclvw76n3nxanbl74mfjk7c4', 'blocked_attempt', 'advance', 'reproduce', 'blocked', '{"context":{"confirmed":false},"counters":{"attempts":1,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"kind":"blocked","validation":{"issues":[{"code":"OUTPUT_SCHEMA","message":"\"reproduced\" is a required property: send artifacts that match the step''s output schema","path":"/artifacts"},{"code":"OUTPUT_SCHEMA","message":"\"command\" is a required property: send artifacts that match the step''s output schema","path":"/artifacts"},{"code":"OUTPUT_SCHEMA","message":"\"observed\" is a required property: send artifacts that match the step''s output schema","path":"/artifacts"},{"code":"OUTPUT_SCHEMA","message":"\"expected\" is a required property: send artifacts that match the step''s output schema","path":"/artifacts"}]}},"rejection":null,"step":"reproduce"}', 1, 4, 1795931169299);
INSERT INTO public.nodes VALUES ('node_agrclvygfcdeiecuwprcckczq4', 'run_agrclvyeebsrh64kai7opgypwi', 'sess_agrclvyeebf2i4jmivk2taghju', 'node_agrclvyfw7xh4zqcimwxh4uq3q', 'step', 'advance', 'decide', 'active', '{"context":{"blocking_findings":0,"focus":"","missing_context":""},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":2,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"decide"}', 1, 9, 1795931178536);
INSERT INTO public.nodes VALUES ('node_agrclvygq7dlr2l2uwlrcdhoye', 'run_agrclvyeebsrh64kai7opgypwi', 'sess_agrclvyeebf2i4jmivk2taghju', 'node_agrclvygfcdeiecuwprcckczq4', 'step', 'advance', 'approve', 'active', '{"context":{"blocking_findings":0,"focus":"","missing_context":""},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":3,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"approve"}', 1, 12, 1795931178632);
INSERT INTO public.nodes VALUES ('node_agrclvyg5e7biikseaa52pzb3y', 'run_agrclvyeebsrh64kai7opgypwi', 'sess_agrclvyeebf2i4jmivk2taghju', 'node_agrclvygq7dlr2l2uwlrcdhoye', 'step', 'advance', 'approve', 'completed', '{"context":{"blocking_findings":0,"focus":"","missing_context":""},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":4,"traversals":{}},"phase":{"kind":"completed"},"rejection":null,"step":"approve"}', 0, 16, 1795931178729);
INSERT INTO public.nodes VALUES ('node_agrclvxegr6e5roq3ct474guvm', 'run_agrclvw76obznuayy46pqtzj6e', 'sess_agrclvw76mzffnrb7mbjxodyl4', 'node_agrclvxccm6xxjemimvsal352y', 'blocked_attempt', 'advance', 'reproduce', 'blocked', '{"context":{"confirmed":false},"counters":{"attempts":2,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"kind":"blocked","validation":{"issues":[{"code":"OUTPUT_SCHEMA","message":"\"reproduced\" is a required property: send artifacts that match the step''s output schema","path":"/artifacts"},{"code":"OUTPUT_SCHEMA","message":"\"command\" is a required property: send artifacts that match the step''s output schema","path":"/artifacts"},{"code":"OUTPUT_SCHEMA","message":"\"observed\" is a required property: send artifacts that match the step''s output schema","path":"/artifacts"},{"code":"OUTPUT_SCHEMA","message":"\"expected\" is a required property: send artifacts that match the step''s output schema","path":"/artifacts"}]}},"rejection":null,"step":"reproduce"}', 1, 6, 1795931169845);
INSERT INTO public.nodes VALUES ('node_agrclvxglmxa3ouogm47dbqv6m', 'run_agrclvw76obznuayy46pqtzj6e', 'sess_agrclvw76mzffnrb7mbjxodyl4', 'node_agrclvxegr6e5roq3ct474guvm', 'blocked_attempt', 'advance', 'reproduce', 'failed', '{"context":{"confirmed":false},"counters":{"attempts":3,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"code":"ATTEMPTS_EXHAUSTED","kind":"failed","message":"step `reproduce` failed its checks 3 times (max_attempts = 3); last issues: OUTPUT_SCHEMA (/artifacts), OUTPUT_SCHEMA (/artifacts), OUTPUT_SCHEMA (/artifacts), OUTPUT_SCHEMA (/artifacts)"},"rejection":null,"step":"reproduce"}', 0, 8, 1795931170400);
INSERT INTO public.nodes VALUES ('node_agrclvxixf5w3iacpr2xc4vhqa', 'run_agrclvxixg5fwulthywxrvlnoy', 'sess_agrclvxixgm232rhxtvaivabha', NULL, 'start', 'start', 'reproduce', 'active', '{"context":{"confirmed":false},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"reproduce"}', 1, 3, 1795931171032);
INSERT INTO public.nodes VALUES ('node_agrclvxk7zncotubc36gkcglgm', 'run_agrclvxixg5fwulthywxrvlnoy', 'sess_agrclvxixgm232rhxtvaivabha', 'node_agrclvxixf5w3iacpr2xc4vhqa', 'step', 'advance', 'hypothesize', 'active', '{"context":{"confirmed":false,"reproduction":"cargo test login"},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":1,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"hypothesize"}', 1, 4, 1795931171582);
INSERT INTO public.nodes VALUES ('node_agrclvxno25m2djkmnqawqzm54', 'run_agrclvxixg5fwulthywxrvlnoy', 'sess_agrclvxixgm232rhxtvaivabha', 'node_agrclvxk7zncotubc36gkcglgm', 'step', 'advance', 'verify', 'active', '{"context":{"confirmed":false,"hypothesis":"Rounding happens per line instead of per total","reproduction":"cargo test login"},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":2,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"verify"}', 1, 6, 1795931172215);
INSERT INTO public.nodes VALUES ('node_agrclvxpu7nsftwt4lekuwuoci', 'run_agrclvxixg5fwulthywxrvlnoy', 'sess_agrclvxixgm232rhxtvaivabha', 'node_agrclvxno25m2djkmnqawqzm54', 'step', 'advance', 'fix', 'active', '{"context":{"confirmed":true,"hypothesis":"Rounding happens per line instead of per total","reproduction":"cargo test login"},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":3,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"fix"}', 1, 8, 1795931172781);
INSERT INTO public.nodes VALUES ('node_agrclvxr3utnzqqseevqwoqcxe', 'run_agrclvxixg5fwulthywxrvlnoy', 'sess_agrclvxixgm232rhxtvaivabha', 'node_agrclvxpu7nsftwt4lekuwuoci', 'step', 'advance', 'review', 'active', '{"context":{"confirmed":true,"hypothesis":"Rounding happens per line instead of per total","reproduction":"cargo test login"},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":4,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"review"}', 1, 11, 1795931173342);
INSERT INTO public.nodes VALUES ('node_agrclvxt45jd3en2dnhdte23em', 'run_agrclvxixg5fwulthywxrvlnoy', 'sess_agrclvxixgm232rhxtvaivabha', 'node_agrclvxr3utnzqqseevqwoqcxe', 'gate', 'advance', 'review', 'waiting_gate', '{"context":{"confirmed":true,"hypothesis":"Rounding happens per line instead of per total","reproduction":"cargo test login"},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":4,"traversals":{}},"phase":{"kind":"waiting_gate","submission":{"choice":null}},"rejection":null,"step":"review"}', 0, 14, 1795931173863);
INSERT INTO public.nodes VALUES ('node_agrclvxx535diuuyh6lzo3bpaa', 'run_agrclvxvykaan6xl3h66rzvyei', 'sess_agrclvxvykw3azrtr4la7q5m2m', 'node_agrclvxvyjigsntdgw6wge45l4', 'step', 'advance', 'work', 'active', '{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":1,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"work"}', 1, 4, 1795931174913);
INSERT INTO public.nodes VALUES ('node_agrclvx2e6azhmubv7pu6v2naa', 'run_agrclvxvykaan6xl3h66rzvyei', 'sess_agrclvxvykw3azrtr4la7q5m2m', 'node_agrclvxx535diuuyh6lzo3bpaa', 'step', 'advance', 'done', 'active', '{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":2,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"done"}', 1, 7, 1795931175471);
INSERT INTO public.nodes VALUES ('node_agrclvx4i4xh7c7qx3uddsimce', 'run_agrclvxvykaan6xl3h66rzvyei', 'sess_agrclvxvykw3azrtr4la7q5m2m', 'node_agrclvx2e6azhmubv7pu6v2naa', 'step', 'advance', 'done', 'completed', '{"context":{},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":3,"traversals":{}},"phase":{"kind":"completed"},"rejection":null,"step":"done"}', 0, 10, 1795931176022);
INSERT INTO public.nodes VALUES ('node_agrclvx6obi462x2xhwzpcczmy', 'run_agrclvx6obiba4vdqixyewujge', 'sess_agrclvx6nthmii4fsurgyaoxba', NULL, 'start', 'start', 'scope', 'active', '{"context":{"blocking_findings":0,"focus":"","missing_context":""},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"scope"}', 1, 3, 1795931176576);
INSERT INTO public.nodes VALUES ('node_agrclvya4ozmi7pkgzlejs5zeq', 'run_agrclvx6obiba4vdqixyewujge', 'sess_agrclvx6nthmii4fsurgyaoxba', 'node_agrclvx6obi462x2xhwzpcczmy', 'step', 'advance', 'assess', 'active', '{"context":{"blocking_findings":0,"focus":"","missing_context":""},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":1,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"assess"}', 0, 4, 1795931177188);
INSERT INTO public.nodes VALUES ('node_agrclvyeebhtr4gwj3z5j3hzyq', 'run_agrclvyeebsrh64kai7opgypwi', 'sess_agrclvyeebf2i4jmivk2taghju', NULL, 'start', 'start', 'scope', 'active', '{"context":{"blocking_findings":0,"focus":"","missing_context":""},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":0,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"scope"}', 1, 3, 1795931178032);
INSERT INTO public.nodes VALUES ('node_agrclvyfw7xh4zqcimwxh4uq3q', 'run_agrclvyeebsrh64kai7opgypwi', 'sess_agrclvyeebf2i4jmivk2taghju', 'node_agrclvyeebhtr4gwj3z5j3hzyq', 'step', 'advance', 'assess', 'active', '{"context":{"blocking_findings":0,"focus":"","missing_context":""},"counters":{"attempts":0,"cycles":0,"replans":0,"revisions":0,"steps_completed":1,"traversals":{}},"phase":{"kind":"pending"},"rejection":null,"step":"assess"}', 1, 5, 1795931178423);


--
-- Data for Name: runs; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.runs VALUES ('run_agrclvyeebsrh64kai7opgypwi', 'sess_agrclvyeebf2i4jmivk2taghju', 'code-review', 'sha256:9cc2a75ce0ff3b004b25421059743ea3bd24ee6a61e45ebcec3d8ebd05a3a35b', 'builtin:code-review', 'running', 'node_agrclvyg5e7biikseaa52pzb3y', 'completed', 5, 1795931178032, 1795931178762);
INSERT INTO public.runs VALUES ('run_agrclvw76obznuayy46pqtzj6e', 'sess_agrclvw76mzffnrb7mbjxodyl4', 'bug-investigation', 'sha256:825a7afbfa76668de4c15d3cf0ab1ebb12be1230e220a1ef895899485297c228', 'builtin:bug-investigation', 'running', 'node_agrclvxglmxa3ouogm47dbqv6m', 'failed', 4, 1795931168771, 1795931170400);
INSERT INTO public.runs VALUES ('run_agrclvvewo7uiu2vqci3oioame', 'sess_agrclvvewpyhre4hsy4thdrboa', 'dev-cycle', 'sha256:4fe5d394cc07011750b53a8da331020b7cedd7d1de28a9508815a112b4795051', 'builtin:dev-cycle', 'running', 'node_agrclvvxtofjtijw7pwhvgthbq', 'completed', 9, 1795931153620, 1795931158427);
INSERT INTO public.runs VALUES ('run_agrclvxixg5fwulthywxrvlnoy', 'sess_agrclvxixgm232rhxtvaivabha', 'bug-investigation', 'sha256:825a7afbfa76668de4c15d3cf0ab1ebb12be1230e220a1ef895899485297c228', 'builtin:bug-investigation', 'running', 'node_agrclvxt45jd3en2dnhdte23em', 'waiting_gate', 6, 1795931171032, 1795931173863);
INSERT INTO public.runs VALUES ('run_agrclvxvykaan6xl3h66rzvyei', 'sess_agrclvxvykw3azrtr4la7q5m2m', 'audited', 'sha256:51d65bdc96ccc644d656fdc88ed2ba944a15953a548ae39d51669c1f60682cf7', 'user:/work/wt-fixtures/crates/test-support/../../testdata/stores/postgres/home/workflows/audited.yaml', 'running', 'node_agrclvx4i4xh7c7qx3uddsimce', 'completed', 4, 1795931174357, 1795931176022);
INSERT INTO public.runs VALUES ('run_agrclvx6obiba4vdqixyewujge', 'sess_agrclvx6nthmii4fsurgyaoxba', 'code-review', 'sha256:9cc2a75ce0ff3b004b25421059743ea3bd24ee6a61e45ebcec3d8ebd05a3a35b', 'builtin:code-review', 'running', 'node_agrclvya4ozmi7pkgzlejs5zeq', 'active', 2, 1795931176576, 1795931177188);
INSERT INTO public.runs VALUES ('run_agrclvvzqpm44ejnfrvxjx5hqq', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'dev-cycle', 'sha256:4fe5d394cc07011750b53a8da331020b7cedd7d1de28a9508815a112b4795051', 'builtin:dev-cycle', 'stopped', 'node_agrclvwyfb6vhudru6vuva3x7u', 'stopped', 14, 1795931158931, 1795931168242);


--
-- Data for Name: sessions; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.sessions VALUES ('sess_agrclvvewpyhre4hsy4thdrboa', 'Add a --verbose flag', 'Add a --verbose flag', 'dev-cycle', 'run_agrclvvewo7uiu2vqci3oioame', 'completed', '/tmp/.tmp7lKasv', 'main', 'ab62eb9bb95f59009211ff398c29c2643629c972', 1795931153620, 1795931158427, 20);
INSERT INTO public.sessions VALUES ('sess_agrclvvzqo2xt4bca5px5f42ze', 'Cache the parsed configuration', 'Cache the parsed configuration', 'dev-cycle', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'stopped', '/tmp/.tmp7lKasv', 'main', 'ab62eb9bb95f59009211ff398c29c2643629c972', 1795931158931, 1795931168242, 33);
INSERT INTO public.sessions VALUES ('sess_agrclvw76mzffnrb7mbjxodyl4', 'Login fails after a password change', 'Login fails after a password change', 'bug-investigation', 'run_agrclvw76obznuayy46pqtzj6e', 'failed', '/tmp/.tmp7lKasv', 'main', 'ab62eb9bb95f59009211ff398c29c2643629c972', 1795931168771, 1795931170400, 10);
INSERT INTO public.sessions VALUES ('sess_agrclvxixgm232rhxtvaivabha', 'Totals are off by one cent', 'Totals are off by one cent', 'bug-investigation', 'run_agrclvxixg5fwulthywxrvlnoy', 'waiting_gate', '/tmp/.tmp7lKasv', 'main', 'ab62eb9bb95f59009211ff398c29c2643629c972', 1795931171032, 1795931173863, 15);
INSERT INTO public.sessions VALUES ('sess_agrclvxvykw3azrtr4la7q5m2m', 'Audit the cache change', 'Audit the cache change', 'audited', 'run_agrclvxvykaan6xl3h66rzvyei', 'completed', '/tmp/.tmp7lKasv', 'main', 'ab62eb9bb95f59009211ff398c29c2643629c972', 1795931174357, 1795931176022, 12);
INSERT INTO public.sessions VALUES ('sess_agrclvx6nthmii4fsurgyaoxba', 'Review the retry change', 'Review the retry change', 'code-review', 'run_agrclvx6obiba4vdqixyewujge', 'active', '/tmp/.tmp7lKasv', 'main', 'ab62eb9bb95f59009211ff398c29c2643629c972', 1795931176576, 1795931177188, 6);
INSERT INTO public.sessions VALUES ('sess_agrclvyeebf2i4jmivk2taghju', 'Review the logging change', 'Review the logging change', 'code-review', 'run_agrclvyeebsrh64kai7opgypwi', 'completed', '/tmp/.tmp7lKasv', 'main', 'ab62eb9bb95f59009211ff398c29c2643629c972', 1795931178032, 1795931178762, 20);


--
-- Data for Name: switchyard_schema; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.switchyard_schema VALUES (1, 4);


--
-- Data for Name: text_words; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.text_words VALUES ('a', 1);
INSERT INTO public.text_words VALUES ('add', 1);
INSERT INTO public.text_words VALUES ('flag', 1);
INSERT INTO public.text_words VALUES ('verbos', 1);
INSERT INTO public.text_words VALUES ('flag', 2);
INSERT INTO public.text_words VALUES ('it', 2);
INSERT INTO public.text_words VALUES ('logger', 2);
INSERT INTO public.text_words VALUES ('pars', 2);
INSERT INTO public.text_words VALUES ('plan', 2);
INSERT INTO public.text_words VALUES ('the', 2);
INSERT INTO public.text_words VALUES ('thread', 2);
INSERT INTO public.text_words VALUES ('to', 2);
INSERT INTO public.text_words VALUES ('gate', 3);
INSERT INTO public.text_words VALUES ('has', 3);
INSERT INTO public.text_words VALUES ('no', 3);
INSERT INTO public.text_words VALUES ('plan', 3);
INSERT INTO public.text_words VALUES ('reject', 3);
INSERT INTO public.text_words VALUES ('test', 3);
INSERT INTO public.text_words VALUES ('the', 3);
INSERT INTO public.text_words VALUES ('a', 4);
INSERT INTO public.text_words VALUES ('as', 4);
INSERT INTO public.text_words VALUES ('befor', 4);
INSERT INTO public.text_words VALUES ('each', 4);
INSERT INTO public.text_words VALUES ('level', 4);
INSERT INTO public.text_words VALUES ('of', 4);
INSERT INTO public.text_words VALUES ('plan', 4);
INSERT INTO public.text_words VALUES ('test', 4);
INSERT INTO public.text_words VALUES ('with', 4);
INSERT INTO public.text_words VALUES ('approv', 5);
INSERT INTO public.text_words VALUES ('gate', 5);
INSERT INTO public.text_words VALUES ('ad', 6);
INSERT INTO public.text_words VALUES ('and', 6);
INSERT INTO public.text_words VALUES ('flag', 6);
INSERT INTO public.text_words VALUES ('it', 6);
INSERT INTO public.text_words VALUES ('test', 6);
INSERT INTO public.text_words VALUES ('the', 6);
INSERT INTO public.text_words VALUES ('cover', 7);
INSERT INTO public.text_words VALUES ('everi', 7);
INSERT INTO public.text_words VALUES ('level', 7);
INSERT INTO public.text_words VALUES ('review', 7);
INSERT INTO public.text_words VALUES ('test', 7);
INSERT INTO public.text_words VALUES ('the', 7);
INSERT INTO public.text_words VALUES ('approv', 8);
INSERT INTO public.text_words VALUES ('gate', 8);
INSERT INTO public.text_words VALUES ('cach', 9);
INSERT INTO public.text_words VALUES ('configur', 9);
INSERT INTO public.text_words VALUES ('pars', 9);
INSERT INTO public.text_words VALUES ('the', 9);
INSERT INTO public.text_words VALUES ('1', 10);
INSERT INTO public.text_words VALUES ('plan', 10);
INSERT INTO public.text_words VALUES ('version', 10);
INSERT INTO public.text_words VALUES ('1', 11);
INSERT INTO public.text_words VALUES ('gate', 11);
INSERT INTO public.text_words VALUES ('reject', 11);
INSERT INTO public.text_words VALUES ('too', 11);
INSERT INTO public.text_words VALUES ('vagu', 11);
INSERT INTO public.text_words VALUES ('2', 12);
INSERT INTO public.text_words VALUES ('plan', 12);
INSERT INTO public.text_words VALUES ('version', 12);
INSERT INTO public.text_words VALUES ('2', 13);
INSERT INTO public.text_words VALUES ('gate', 13);
INSERT INTO public.text_words VALUES ('reject', 13);
INSERT INTO public.text_words VALUES ('too', 13);
INSERT INTO public.text_words VALUES ('vagu', 13);
INSERT INTO public.text_words VALUES ('3', 14);
INSERT INTO public.text_words VALUES ('plan', 14);
INSERT INTO public.text_words VALUES ('version', 14);
INSERT INTO public.text_words VALUES ('3', 15);
INSERT INTO public.text_words VALUES ('gate', 15);
INSERT INTO public.text_words VALUES ('reject', 15);
INSERT INTO public.text_words VALUES ('too', 15);
INSERT INTO public.text_words VALUES ('vagu', 15);
INSERT INTO public.text_words VALUES ('4', 16);
INSERT INTO public.text_words VALUES ('plan', 16);
INSERT INTO public.text_words VALUES ('version', 16);
INSERT INTO public.text_words VALUES ('4', 17);
INSERT INTO public.text_words VALUES ('gate', 17);
INSERT INTO public.text_words VALUES ('reject', 17);
INSERT INTO public.text_words VALUES ('too', 17);
INSERT INTO public.text_words VALUES ('vagu', 17);
INSERT INTO public.text_words VALUES ('decid', 18);
INSERT INTO public.text_words VALUES ('invalid', 18);
INSERT INTO public.text_words VALUES ('more', 18);
INSERT INTO public.text_words VALUES ('one', 18);
INSERT INTO public.text_words VALUES ('out', 18);
INSERT INTO public.text_words VALUES ('revis', 18);
INSERT INTO public.text_words VALUES ('spell', 18);
INSERT INTO public.text_words VALUES ('the', 18);
INSERT INTO public.text_words VALUES ('tri', 18);
INSERT INTO public.text_words VALUES ('with', 18);
INSERT INTO public.text_words VALUES ('5', 19);
INSERT INTO public.text_words VALUES ('everi', 19);
INSERT INTO public.text_words VALUES ('invalid', 19);
INSERT INTO public.text_words VALUES ('on', 19);
INSERT INTO public.text_words VALUES ('plan', 19);
INSERT INTO public.text_words VALUES ('version', 19);
INSERT INTO public.text_words VALUES ('write', 19);
INSERT INTO public.text_words VALUES ('approv', 20);
INSERT INTO public.text_words VALUES ('gate', 20);
INSERT INTO public.text_words VALUES ('a', 21);
INSERT INTO public.text_words VALUES ('behind', 21);
INSERT INTO public.text_words VALUES ('cach', 21);
INSERT INTO public.text_words VALUES ('it', 21);
INSERT INTO public.text_words VALUES ('lock', 21);
INSERT INTO public.text_words VALUES ('done', 22);
INSERT INTO public.text_words VALUES ('half', 22);
INSERT INTO public.text_words VALUES ('review', 22);
INSERT INTO public.text_words VALUES ('a', 23);
INSERT INTO public.text_words VALUES ('cach', 23);
INSERT INTO public.text_words VALUES ('it', 23);
INSERT INTO public.text_words VALUES ('lock', 23);
INSERT INTO public.text_words VALUES ('per', 23);
INSERT INTO public.text_words VALUES ('reader', 23);
INSERT INTO public.text_words VALUES ('without', 23);
INSERT INTO public.text_words VALUES ('a', 24);
INSERT INTO public.text_words VALUES ('after', 24);
INSERT INTO public.text_words VALUES ('chang', 24);
INSERT INTO public.text_words VALUES ('fail', 24);
INSERT INTO public.text_words VALUES ('login', 24);
INSERT INTO public.text_words VALUES ('password', 24);
INSERT INTO public.text_words VALUES ('could', 25);
INSERT INTO public.text_words VALUES ('it', 25);
INSERT INTO public.text_words VALUES ('not', 25);
INSERT INTO public.text_words VALUES ('reproduc', 25);
INSERT INTO public.text_words VALUES ('yet', 25);
INSERT INTO public.text_words VALUES ('could', 26);
INSERT INTO public.text_words VALUES ('it', 26);
INSERT INTO public.text_words VALUES ('not', 26);
INSERT INTO public.text_words VALUES ('reproduc', 26);
INSERT INTO public.text_words VALUES ('yet', 26);
INSERT INTO public.text_words VALUES ('could', 27);
INSERT INTO public.text_words VALUES ('it', 27);
INSERT INTO public.text_words VALUES ('not', 27);
INSERT INTO public.text_words VALUES ('reproduc', 27);
INSERT INTO public.text_words VALUES ('yet', 27);
INSERT INTO public.text_words VALUES ('are', 28);
INSERT INTO public.text_words VALUES ('by', 28);
INSERT INTO public.text_words VALUES ('cent', 28);
INSERT INTO public.text_words VALUES ('off', 28);
INSERT INTO public.text_words VALUES ('one', 28);
INSERT INTO public.text_words VALUES ('total', 28);
INSERT INTO public.text_words VALUES ('reproduc', 29);
INSERT INTO public.text_words VALUES ('happen', 30);
INSERT INTO public.text_words VALUES ('instead', 30);
INSERT INTO public.text_words VALUES ('line', 30);
INSERT INTO public.text_words VALUES ('of', 30);
INSERT INTO public.text_words VALUES ('per', 30);
INSERT INTO public.text_words VALUES ('round', 30);
INSERT INTO public.text_words VALUES ('total', 30);
INSERT INTO public.text_words VALUES ('confirm', 31);
INSERT INTO public.text_words VALUES ('fix', 32);
INSERT INTO public.text_words VALUES ('and', 33);
INSERT INTO public.text_words VALUES ('caus', 33);
INSERT INTO public.text_words VALUES ('diff', 33);
INSERT INTO public.text_words VALUES ('for', 33);
INSERT INTO public.text_words VALUES ('review', 33);
INSERT INTO public.text_words VALUES ('root', 33);
INSERT INTO public.text_words VALUES ('test', 33);
INSERT INTO public.text_words VALUES ('audit', 34);
INSERT INTO public.text_words VALUES ('cach', 34);
INSERT INTO public.text_words VALUES ('chang', 34);
INSERT INTO public.text_words VALUES ('the', 34);
INSERT INTO public.text_words VALUES ('chang', 35);
INSERT INTO public.text_words VALUES ('retri', 35);
INSERT INTO public.text_words VALUES ('review', 35);
INSERT INTO public.text_words VALUES ('the', 35);
INSERT INTO public.text_words VALUES ('chang', 36);
INSERT INTO public.text_words VALUES ('log', 36);
INSERT INTO public.text_words VALUES ('review', 36);
INSERT INTO public.text_words VALUES ('the', 36);
INSERT INTO public.text_words VALUES ('scope', 37);
INSERT INTO public.text_words VALUES ('find', 38);
INSERT INTO public.text_words VALUES ('no', 38);
INSERT INTO public.text_words VALUES ('decid', 39);
INSERT INTO public.text_words VALUES ('done', 39);
INSERT INTO public.text_words VALUES ('step', 39);
INSERT INTO public.text_words VALUES ('approv', 40);


--
-- Data for Name: texts; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.texts VALUES (1, 'sess_agrclvvewpyhre4hsy4thdrboa', NULL, '', 1, 'goal', 'Add a --verbose flag', DEFAULT);
INSERT INTO public.texts VALUES (2, 'sess_agrclvvewpyhre4hsy4thdrboa', 'node_agrclvvgzjfg5j7mpv3ze6t6sq', 'plan', 5, 'notes', 'Plan: parse the flag, thread it to the logger.', DEFAULT);
INSERT INTO public.texts VALUES (3, 'sess_agrclvvewpyhre4hsy4thdrboa', 'node_agrclvvjgunjabimkeiducclca', 'plan', 7, 'decision', 'gate rejected: The plan has no tests', DEFAULT);
INSERT INTO public.texts VALUES (4, 'sess_agrclvvewpyhre4hsy4thdrboa', 'node_agrclvvlpfhzid5rsa3jptpqve', 'plan', 9, 'notes', 'Plan: as before, with a test of each level.', DEFAULT);
INSERT INTO public.texts VALUES (5, 'sess_agrclvvewpyhre4hsy4thdrboa', 'node_agrclvvns5jnut7frj7572lldm', 'plan', 11, 'decision', 'gate approved', DEFAULT);
INSERT INTO public.texts VALUES (6, 'sess_agrclvvewpyhre4hsy4thdrboa', 'node_agrclvvrxglo6yyxchcq5kb47m', 'implement', 15, 'notes', 'Added the flag and its tests.', DEFAULT);
INSERT INTO public.texts VALUES (7, 'sess_agrclvvewpyhre4hsy4thdrboa', 'node_agrclvvtz2sgn56wmdopjpnxae', 'review', 17, 'notes', 'Reviewed: the tests cover every level.', DEFAULT);
INSERT INTO public.texts VALUES (8, 'sess_agrclvvewpyhre4hsy4thdrboa', 'node_agrclvvxtofjtijw7pwhvgthbq', 'review', 19, 'decision', 'gate approved', DEFAULT);
INSERT INTO public.texts VALUES (9, 'sess_agrclvvzqo2xt4bca5px5f42ze', NULL, '', 1, 'goal', 'Cache the parsed configuration', DEFAULT);
INSERT INTO public.texts VALUES (10, 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvv3mxq3lyr5ey7dwb53py', 'plan', 5, 'notes', 'Plan, version 1.', DEFAULT);
INSERT INTO public.texts VALUES (11, 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvv5ctnxm7tv3wexqmh3t4', 'plan', 7, 'decision', 'gate rejected: Rejection 1: too vague', DEFAULT);
INSERT INTO public.texts VALUES (12, 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvv7dsksduehid5hhruoua', 'plan', 9, 'notes', 'Plan, version 2.', DEFAULT);
INSERT INTO public.texts VALUES (13, 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvwbcdgwktct2zng2kq4hu', 'plan', 11, 'decision', 'gate rejected: Rejection 2: too vague', DEFAULT);
INSERT INTO public.texts VALUES (14, 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvwdmx5jiqvm3lse62w4j4', 'plan', 13, 'notes', 'Plan, version 3.', DEFAULT);
INSERT INTO public.texts VALUES (15, 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvwfrh4vaieaoilargbqmq', 'plan', 15, 'decision', 'gate rejected: Rejection 3: too vague', DEFAULT);
INSERT INTO public.texts VALUES (16, 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvwhrewb4cptrg3ljy7cbe', 'plan', 17, 'notes', 'Plan, version 4.', DEFAULT);
INSERT INTO public.texts VALUES (17, 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvwjraayu6lvntvt3qfxzi', 'plan', 19, 'decision', 'gate rejected: Rejection 4: too vague', DEFAULT);
INSERT INTO public.texts VALUES (18, 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvwlo5su2wkmz4vdkpnno4', 'plan', 21, 'decision', 'decided revise: One more try, with the invalidation spelled out', DEFAULT);
INSERT INTO public.texts VALUES (19, 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvwnuuicf6ptrtbx22ncta', 'plan', 23, 'notes', 'Plan, version 5: invalidate on every write.', DEFAULT);
INSERT INTO public.texts VALUES (20, 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvwpqw7yokcrmdfi35lx2u', 'plan', 25, 'decision', 'gate approved', DEFAULT);
INSERT INTO public.texts VALUES (21, 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvwrpsazh3nm72ju2l27gu', 'implement', 27, 'notes', 'Cached it behind a lock.', DEFAULT);
INSERT INTO public.texts VALUES (22, 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvwrpsazh3nm72ju2l27gu', 'review', 28, 'checkpoint', 'Review half done', DEFAULT);
INSERT INTO public.texts VALUES (23, 'sess_agrclvvzqo2xt4bca5px5f42ze', 'node_agrclvwyfb6vhudru6vuva3x7u', 'implement', 30, 'notes', 'Cached it without a lock, per reader.', DEFAULT);
INSERT INTO public.texts VALUES (24, 'sess_agrclvw76mzffnrb7mbjxodyl4', NULL, '', 1, 'goal', 'Login fails after a password change', DEFAULT);
INSERT INTO public.texts VALUES (25, 'sess_agrclvw76mzffnrb7mbjxodyl4', 'node_agrclvxccm6xxjemimvsal352y', 'reproduce', 5, 'notes', 'Could not reproduce it yet.', DEFAULT);
INSERT INTO public.texts VALUES (26, 'sess_agrclvw76mzffnrb7mbjxodyl4', 'node_agrclvxegr6e5roq3ct474guvm', 'reproduce', 7, 'notes', 'Could not reproduce it yet.', DEFAULT);
INSERT INTO public.texts VALUES (27, 'sess_agrclvw76mzffnrb7mbjxodyl4', 'node_agrclvxglmxa3ouogm47dbqv6m', 'reproduce', 9, 'notes', 'Could not reproduce it yet.', DEFAULT);
INSERT INTO public.texts VALUES (28, 'sess_agrclvxixgm232rhxtvaivabha', NULL, '', 1, 'goal', 'Totals are off by one cent', DEFAULT);
INSERT INTO public.texts VALUES (29, 'sess_agrclvxixgm232rhxtvaivabha', 'node_agrclvxk7zncotubc36gkcglgm', 'reproduce', 5, 'notes', 'Reproduced.', DEFAULT);
INSERT INTO public.texts VALUES (30, 'sess_agrclvxixgm232rhxtvaivabha', 'node_agrclvxno25m2djkmnqawqzm54', 'hypothesize', 7, 'notes', 'Rounding happens per line instead of per total', DEFAULT);
INSERT INTO public.texts VALUES (31, 'sess_agrclvxixgm232rhxtvaivabha', 'node_agrclvxpu7nsftwt4lekuwuoci', 'verify', 9, 'notes', 'Confirmed.', DEFAULT);
INSERT INTO public.texts VALUES (32, 'sess_agrclvxixgm232rhxtvaivabha', 'node_agrclvxr3utnzqqseevqwoqcxe', 'fix', 12, 'notes', 'Fixed.', DEFAULT);
INSERT INTO public.texts VALUES (33, 'sess_agrclvxixgm232rhxtvaivabha', 'node_agrclvxt45jd3en2dnhdte23em', 'review', 15, 'notes', 'Root cause, diff and test, for review.', DEFAULT);
INSERT INTO public.texts VALUES (34, 'sess_agrclvxvykw3azrtr4la7q5m2m', NULL, '', 1, 'goal', 'Audit the cache change', DEFAULT);
INSERT INTO public.texts VALUES (35, 'sess_agrclvx6nthmii4fsurgyaoxba', NULL, '', 1, 'goal', 'Review the retry change', DEFAULT);
INSERT INTO public.texts VALUES (36, 'sess_agrclvyeebf2i4jmivk2taghju', NULL, '', 1, 'goal', 'Review the logging change', DEFAULT);
INSERT INTO public.texts VALUES (37, 'sess_agrclvyeebf2i4jmivk2taghju', 'node_agrclvyfw7xh4zqcimwxh4uq3q', 'scope', 6, 'notes', 'Scoped.', DEFAULT);
INSERT INTO public.texts VALUES (38, 'sess_agrclvyeebf2i4jmivk2taghju', 'node_agrclvygfcdeiecuwprcckczq4', 'assess', 10, 'notes', 'No findings.', DEFAULT);
INSERT INTO public.texts VALUES (39, 'sess_agrclvyeebf2i4jmivk2taghju', 'node_agrclvygq7dlr2l2uwlrcdhoye', 'decide', 13, 'notes', 'Step decide done.', DEFAULT);
INSERT INTO public.texts VALUES (40, 'sess_agrclvyeebf2i4jmivk2taghju', 'node_agrclvyg5e7biikseaa52pzb3y', 'approve', 17, 'notes', 'Approved.', DEFAULT);


--
-- Data for Name: tokens; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.tokens VALUES ('01a225d6a4d429c6a5bdcefc', 'state', 'sess_agrclvvewpyhre4hsy4thdrboa', 'run_agrclvvewo7uiu2vqci3oioame', 'node_agrclvvewmkyp2r4inekgzqae4', '');
INSERT INTO public.tokens VALUES ('01a225d6a4d41d66e667c1ca', 'checkpoint', 'sess_agrclvvewpyhre4hsy4thdrboa', 'run_agrclvvewo7uiu2vqci3oioame', 'node_agrclvvewmkyp2r4inekgzqae4', 'attempt_3bga4dyjhwq5miarqripnl4gpm');
INSERT INTO public.tokens VALUES ('01a225d6a4d490b2dfbd1046', 'continue', 'sess_agrclvvewpyhre4hsy4thdrboa', 'run_agrclvvewo7uiu2vqci3oioame', 'node_agrclvvewmkyp2r4inekgzqae4', 'attempt_3bga4dyjhwq5miarqripnl4gpm');
INSERT INTO public.tokens VALUES ('01a225d6a6ca99cc622eeef9', 'state', 'sess_agrclvvewpyhre4hsy4thdrboa', 'run_agrclvvewo7uiu2vqci3oioame', 'node_agrclvvgzjfg5j7mpv3ze6t6sq', '');
INSERT INTO public.tokens VALUES ('01a225d6a6caac8532b3e3bd', 'checkpoint', 'sess_agrclvvewpyhre4hsy4thdrboa', 'run_agrclvvewo7uiu2vqci3oioame', 'node_agrclvvgzjfg5j7mpv3ze6t6sq', 'attempt_jrlalqbbjns7mhpuoapbn46pwm');
INSERT INTO public.tokens VALUES ('01a225d6a9353f7f5acaa9ec', 'state', 'sess_agrclvvewpyhre4hsy4thdrboa', 'run_agrclvvewo7uiu2vqci3oioame', 'node_agrclvvjgunjabimkeiducclca', '');
INSERT INTO public.tokens VALUES ('01a225d6a935757981b18f09', 'checkpoint', 'sess_agrclvvewpyhre4hsy4thdrboa', 'run_agrclvvewo7uiu2vqci3oioame', 'node_agrclvvjgunjabimkeiducclca', 'attempt_qyialov4c44xizn225rp7btwjy');
INSERT INTO public.tokens VALUES ('01a225d6a935607827c137a9', 'continue', 'sess_agrclvvewpyhre4hsy4thdrboa', 'run_agrclvvewo7uiu2vqci3oioame', 'node_agrclvvjgunjabimkeiducclca', 'attempt_qyialov4c44xizn225rp7btwjy');
INSERT INTO public.tokens VALUES ('01a225d6ab791d24431f7f4c', 'state', 'sess_agrclvvewpyhre4hsy4thdrboa', 'run_agrclvvewo7uiu2vqci3oioame', 'node_agrclvvlpfhzid5rsa3jptpqve', '');
INSERT INTO public.tokens VALUES ('01a225d6ab79902b3df740bc', 'checkpoint', 'sess_agrclvvewpyhre4hsy4thdrboa', 'run_agrclvvewo7uiu2vqci3oioame', 'node_agrclvvlpfhzid5rsa3jptpqve', 'attempt_ovvdwszjtn5cuimdxvz7xfkhdy');
INSERT INTO public.tokens VALUES ('01a225d6ad97ae4b3513b8d3', 'state', 'sess_agrclvvewpyhre4hsy4thdrboa', 'run_agrclvvewo7uiu2vqci3oioame', 'node_agrclvvns5jnut7frj7572lldm', '');
INSERT INTO public.tokens VALUES ('01a225d6ad976139bb1b37a0', 'checkpoint', 'sess_agrclvvewpyhre4hsy4thdrboa', 'run_agrclvvewo7uiu2vqci3oioame', 'node_agrclvvns5jnut7frj7572lldm', 'attempt_6necjwvyrzq2qafyjgndpq6voy');
INSERT INTO public.tokens VALUES ('01a225d6ad97ccb92fc9f237', 'continue', 'sess_agrclvvewpyhre4hsy4thdrboa', 'run_agrclvvewo7uiu2vqci3oioame', 'node_agrclvvns5jnut7frj7572lldm', 'attempt_6necjwvyrzq2qafyjgndpq6voy');
INSERT INTO public.tokens VALUES ('01a225d6afabb4bbef1849e6', 'state', 'sess_agrclvvewpyhre4hsy4thdrboa', 'run_agrclvvewo7uiu2vqci3oioame', 'node_agrclvvpvmegh3oxttoz7v7efm', '');
INSERT INTO public.tokens VALUES ('01a225d6afab84d78a54c641', 'checkpoint', 'sess_agrclvvewpyhre4hsy4thdrboa', 'run_agrclvvewo7uiu2vqci3oioame', 'node_agrclvvpvmegh3oxttoz7v7efm', 'attempt_au6xbqpkoddbixucqjbrxljx54');
INSERT INTO public.tokens VALUES ('01a225d6afab21e6f0ff8847', 'continue', 'sess_agrclvvewpyhre4hsy4thdrboa', 'run_agrclvvewo7uiu2vqci3oioame', 'node_agrclvvpvmegh3oxttoz7v7efm', 'attempt_au6xbqpkoddbixucqjbrxljx54');
INSERT INTO public.tokens VALUES ('01a225d6b1b9f85882d02ac3', 'state', 'sess_agrclvvewpyhre4hsy4thdrboa', 'run_agrclvvewo7uiu2vqci3oioame', 'node_agrclvvrxglo6yyxchcq5kb47m', '');
INSERT INTO public.tokens VALUES ('01a225d6b1b901e93ee05d83', 'checkpoint', 'sess_agrclvvewpyhre4hsy4thdrboa', 'run_agrclvvewo7uiu2vqci3oioame', 'node_agrclvvrxglo6yyxchcq5kb47m', 'attempt_xfrkzpdfrgnzu7fcngzwlwmany');
INSERT INTO public.tokens VALUES ('01a225d6b1b9013542cad003', 'continue', 'sess_agrclvvewpyhre4hsy4thdrboa', 'run_agrclvvewo7uiu2vqci3oioame', 'node_agrclvvrxglo6yyxchcq5kb47m', 'attempt_xfrkzpdfrgnzu7fcngzwlwmany');
INSERT INTO public.tokens VALUES ('01a225d6b3ce9135cc0047c9', 'state', 'sess_agrclvvewpyhre4hsy4thdrboa', 'run_agrclvvewo7uiu2vqci3oioame', 'node_agrclvvtz2sgn56wmdopjpnxae', '');
INSERT INTO public.tokens VALUES ('01a225d6b3cec3cb68ff8b1f', 'checkpoint', 'sess_agrclvvewpyhre4hsy4thdrboa', 'run_agrclvvewo7uiu2vqci3oioame', 'node_agrclvvtz2sgn56wmdopjpnxae', 'attempt_cju47pbdugsgdxh6gp6pjecgfe');
INSERT INTO public.tokens VALUES ('01a225d6b79bc03b7b27682a', 'state', 'sess_agrclvvewpyhre4hsy4thdrboa', 'run_agrclvvewo7uiu2vqci3oioame', 'node_agrclvvxtofjtijw7pwhvgthbq', '');
INSERT INTO public.tokens VALUES ('01a225d6b9933c2b81085ce8', 'state', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvvzqm3nszvjrtirnsnpge', '');
INSERT INTO public.tokens VALUES ('01a225d6b9933af8c51fa8c5', 'checkpoint', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvvzqm3nszvjrtirnsnpge', 'attempt_3qv54nfqh35qzlbywutfne6l5y');
INSERT INTO public.tokens VALUES ('01a225d6b9930e75f60f26ca', 'continue', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvvzqm3nszvjrtirnsnpge', 'attempt_3qv54nfqh35qzlbywutfne6l5y');
INSERT INTO public.tokens VALUES ('01a225d6bb65bf088cd8bc8a', 'state', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvv3mxq3lyr5ey7dwb53py', '');
INSERT INTO public.tokens VALUES ('01a225d6bb65a7cd2dab0ddc', 'checkpoint', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvv3mxq3lyr5ey7dwb53py', 'attempt_3pln5zya3optg7swtm6irrjulu');
INSERT INTO public.tokens VALUES ('01a225d6bd147255c2252861', 'state', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvv5ctnxm7tv3wexqmh3t4', '');
INSERT INTO public.tokens VALUES ('01a225d6bd1425c90da0484a', 'checkpoint', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvv5ctnxm7tv3wexqmh3t4', 'attempt_x3gqixllwchpnz35l24rvxe2ty');
INSERT INTO public.tokens VALUES ('01a225d6bd1448fd4b3ad2a3', 'continue', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvv5ctnxm7tv3wexqmh3t4', 'attempt_x3gqixllwchpnz35l24rvxe2ty');
INSERT INTO public.tokens VALUES ('01a225d6bf1d6fad55adf9aa', 'state', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvv7dsksduehid5hhruoua', '');
INSERT INTO public.tokens VALUES ('01a225d6bf1d5b7afe5188bc', 'checkpoint', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvv7dsksduehid5hhruoua', 'attempt_tnydtqu2xht7p23r46okkqalwi');
INSERT INTO public.tokens VALUES ('01a225d6c11024fbb0e9eaa7', 'state', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwbcdgwktct2zng2kq4hu', '');
INSERT INTO public.tokens VALUES ('01a225d6c110739276824152', 'checkpoint', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwbcdgwktct2zng2kq4hu', 'attempt_hatmcnzgokptsxn5c6eoaqcgsq');
INSERT INTO public.tokens VALUES ('01a225d6c110a88793a8cefe', 'continue', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwbcdgwktct2zng2kq4hu', 'attempt_hatmcnzgokptsxn5c6eoaqcgsq');
INSERT INTO public.tokens VALUES ('01a225d6c366b1e136ecae5c', 'state', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwdmx5jiqvm3lse62w4j4', '');
INSERT INTO public.tokens VALUES ('01a225d6c366c71c58ffa543', 'checkpoint', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwdmx5jiqvm3lse62w4j4', 'attempt_vf5x5xtfqkjk4fanke6rj7buym');
INSERT INTO public.tokens VALUES ('01a225d6c5892c748bcc68c6', 'state', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwfrh4vaieaoilargbqmq', '');
INSERT INTO public.tokens VALUES ('01a225d6c589c6f162c0bf57', 'checkpoint', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwfrh4vaieaoilargbqmq', 'attempt_7eo7a4vyglp43dshz3u3lxdg64');
INSERT INTO public.tokens VALUES ('01a225d6c589461ed1986169', 'continue', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwfrh4vaieaoilargbqmq', 'attempt_7eo7a4vyglp43dshz3u3lxdg64');
INSERT INTO public.tokens VALUES ('01a225d6c78929eda83d3023', 'state', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwhrewb4cptrg3ljy7cbe', '');
INSERT INTO public.tokens VALUES ('01a225d6c789b5d3cfb5dad3', 'checkpoint', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwhrewb4cptrg3ljy7cbe', 'attempt_zx2yoklo3gsd35gynpnj72rrva');
INSERT INTO public.tokens VALUES ('01a225d6c98856712305f99b', 'state', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwjraayu6lvntvt3qfxzi', '');
INSERT INTO public.tokens VALUES ('01a225d6c9888bcd541662f0', 'checkpoint', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwjraayu6lvntvt3qfxzi', 'attempt_74qrcclc6ut6f6nu5vt4yuqr4i');
INSERT INTO public.tokens VALUES ('01a225d6cb7786bbfdfa2b2a', 'state', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwlo5su2wkmz4vdkpnno4', '');
INSERT INTO public.tokens VALUES ('01a225d6cb779f2a821cc0f2', 'checkpoint', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwlo5su2wkmz4vdkpnno4', 'attempt_o7jmltod4yefc54l7muh56y7xq');
INSERT INTO public.tokens VALUES ('01a225d6cb77c3bf351e0850', 'continue', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwlo5su2wkmz4vdkpnno4', 'attempt_o7jmltod4yefc54l7muh56y7xq');
INSERT INTO public.tokens VALUES ('01a225d6cda6cc8496659f5a', 'state', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwnuuicf6ptrtbx22ncta', '');
INSERT INTO public.tokens VALUES ('01a225d6cda63464d04b56e7', 'checkpoint', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwnuuicf6ptrtbx22ncta', 'attempt_arj7unfym65ux5crenkgyo3ciy');
INSERT INTO public.tokens VALUES ('01a225d6cf85d0c09166a55e', 'state', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwpqw7yokcrmdfi35lx2u', '');
INSERT INTO public.tokens VALUES ('01a225d6cf8510bce20efa42', 'checkpoint', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwpqw7yokcrmdfi35lx2u', 'attempt_77s4e53ngdyhx6xyodzrsy7pee');
INSERT INTO public.tokens VALUES ('01a225d6cf856c84aa57b878', 'continue', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwpqw7yokcrmdfi35lx2u', 'attempt_77s4e53ngdyhx6xyodzrsy7pee');
INSERT INTO public.tokens VALUES ('01a225d6d17ddeed631ef0d6', 'state', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwrpsazh3nm72ju2l27gu', '');
INSERT INTO public.tokens VALUES ('01a225d6d17d183c27589c7c', 'checkpoint', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwrpsazh3nm72ju2l27gu', 'attempt_oasuaxu2xknwssfmqclqv4mjvq');
INSERT INTO public.tokens VALUES ('01a225d6d17db2b738fe7089', 'continue', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwrpsazh3nm72ju2l27gu', 'attempt_oasuaxu2xknwssfmqclqv4mjvq');
INSERT INTO public.tokens VALUES ('01a225d6d67a6e801e41eb98', 'continue', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwpqw7yokcrmdfi35lx2u', 'attempt_agrclvwwpkp45gkytdj54d6w3e');
INSERT INTO public.tokens VALUES ('01a225d6d828a36cdc3da04b', 'state', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwyfb6vhudru6vuva3x7u', '');
INSERT INTO public.tokens VALUES ('01a225d6d8280f8cbf0027d6', 'checkpoint', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwyfb6vhudru6vuva3x7u', 'attempt_gsrndtxfojyqgq4laevfrxwwvq');
INSERT INTO public.tokens VALUES ('01a225d6d828439ae6563f94', 'continue', 'sess_agrclvvzqo2xt4bca5px5f42ze', 'run_agrclvvzqpm44ejnfrvxjx5hqq', 'node_agrclvwyfb6vhudru6vuva3x7u', 'attempt_gsrndtxfojyqgq4laevfrxwwvq');
INSERT INTO public.tokens VALUES ('01a225d6e0034570d54fb9e6', 'state', 'sess_agrclvw76mzffnrb7mbjxodyl4', 'run_agrclvw76obznuayy46pqtzj6e', 'node_agrclvw76n3nxanbl74mfjk7c4', '');
INSERT INTO public.tokens VALUES ('01a225d6e0036b2fa6c6b232', 'checkpoint', 'sess_agrclvw76mzffnrb7mbjxodyl4', 'run_agrclvw76obznuayy46pqtzj6e', 'node_agrclvw76n3nxanbl74mfjk7c4', 'attempt_6ivhezlngwyrjybgvhmwnwpigu');
INSERT INTO public.tokens VALUES ('01a225d6e003e57467b5a9c0', 'continue', 'sess_agrclvw76mzffnrb7mbjxodyl4', 'run_agrclvw76obznuayy46pqtzj6e', 'node_agrclvw76n3nxanbl74mfjk7c4', 'attempt_6ivhezlngwyrjybgvhmwnwpigu');
INSERT INTO public.tokens VALUES ('01a225d6e21354c3415aab09', 'state', 'sess_agrclvw76mzffnrb7mbjxodyl4', 'run_agrclvw76obznuayy46pqtzj6e', 'node_agrclvxccm6xxjemimvsal352y', '');
INSERT INTO public.tokens VALUES ('01a225d6e21304963561e808', 'checkpoint', 'sess_agrclvw76mzffnrb7mbjxodyl4', 'run_agrclvw76obznuayy46pqtzj6e', 'node_agrclvxccm6xxjemimvsal352y', 'attempt_ryb6xd6l5kiwx56xxlkawzawqm');
INSERT INTO public.tokens VALUES ('01a225d6e213a23e2a28d2cd', 'continue', 'sess_agrclvw76mzffnrb7mbjxodyl4', 'run_agrclvw76obznuayy46pqtzj6e', 'node_agrclvxccm6xxjemimvsal352y', 'attempt_ryb6xd6l5kiwx56xxlkawzawqm');
INSERT INTO public.tokens VALUES ('01a225d6e435ab4fc06e7cf5', 'state', 'sess_agrclvw76mzffnrb7mbjxodyl4', 'run_agrclvw76obznuayy46pqtzj6e', 'node_agrclvxegr6e5roq3ct474guvm', '');
INSERT INTO public.tokens VALUES ('01a225d6e43591fb6e80613d', 'checkpoint', 'sess_agrclvw76mzffnrb7mbjxodyl4', 'run_agrclvw76obznuayy46pqtzj6e', 'node_agrclvxegr6e5roq3ct474guvm', 'attempt_jdantwi55fmfffvlh2byv4owgu');
INSERT INTO public.tokens VALUES ('01a225d6e43596ba3f7a3fc8', 'continue', 'sess_agrclvw76mzffnrb7mbjxodyl4', 'run_agrclvw76obznuayy46pqtzj6e', 'node_agrclvxegr6e5roq3ct474guvm', 'attempt_jdantwi55fmfffvlh2byv4owgu');
INSERT INTO public.tokens VALUES ('01a225d6e65c73c499262fa4', 'state', 'sess_agrclvw76mzffnrb7mbjxodyl4', 'run_agrclvw76obznuayy46pqtzj6e', 'node_agrclvxglmxa3ouogm47dbqv6m', '');
INSERT INTO public.tokens VALUES ('01a225d6e8d84d83b4530043', 'state', 'sess_agrclvxixgm232rhxtvaivabha', 'run_agrclvxixg5fwulthywxrvlnoy', 'node_agrclvxixf5w3iacpr2xc4vhqa', '');
INSERT INTO public.tokens VALUES ('01a225d6e8d8a4d5dacabeb2', 'checkpoint', 'sess_agrclvxixgm232rhxtvaivabha', 'run_agrclvxixg5fwulthywxrvlnoy', 'node_agrclvxixf5w3iacpr2xc4vhqa', 'attempt_xhxjw3msglhzd4b3m7md6aoqvy');
INSERT INTO public.tokens VALUES ('01a225d6e8d8be05c3ed8df1', 'continue', 'sess_agrclvxixgm232rhxtvaivabha', 'run_agrclvxixg5fwulthywxrvlnoy', 'node_agrclvxixf5w3iacpr2xc4vhqa', 'attempt_xhxjw3msglhzd4b3m7md6aoqvy');
INSERT INTO public.tokens VALUES ('01a225d6eafea570fe7ff7b8', 'state', 'sess_agrclvxixgm232rhxtvaivabha', 'run_agrclvxixg5fwulthywxrvlnoy', 'node_agrclvxk7zncotubc36gkcglgm', '');
INSERT INTO public.tokens VALUES ('01a225d6eafec574c2a16c2f', 'checkpoint', 'sess_agrclvxixgm232rhxtvaivabha', 'run_agrclvxixg5fwulthywxrvlnoy', 'node_agrclvxk7zncotubc36gkcglgm', 'attempt_5gbewzgdm7fh3dwzhk7smcroyq');
INSERT INTO public.tokens VALUES ('01a225d6eafe8b728dde272d', 'continue', 'sess_agrclvxixgm232rhxtvaivabha', 'run_agrclvxixg5fwulthywxrvlnoy', 'node_agrclvxk7zncotubc36gkcglgm', 'attempt_5gbewzgdm7fh3dwzhk7smcroyq');
INSERT INTO public.tokens VALUES ('01a225d6ed76514e656bbad8', 'state', 'sess_agrclvxixgm232rhxtvaivabha', 'run_agrclvxixg5fwulthywxrvlnoy', 'node_agrclvxno25m2djkmnqawqzm54', '');
INSERT INTO public.tokens VALUES ('01a225d6ed765957ef64ca55', 'checkpoint', 'sess_agrclvxixgm232rhxtvaivabha', 'run_agrclvxixg5fwulthywxrvlnoy', 'node_agrclvxno25m2djkmnqawqzm54', 'attempt_zqgvksy24ajw5drkenrd4o6nzi');
INSERT INTO public.tokens VALUES ('01a225d6ed779d0b101a2a99', 'continue', 'sess_agrclvxixgm232rhxtvaivabha', 'run_agrclvxixg5fwulthywxrvlnoy', 'node_agrclvxno25m2djkmnqawqzm54', 'attempt_zqgvksy24ajw5drkenrd4o6nzi');
INSERT INTO public.tokens VALUES ('01a225d6efad421a89cfb423', 'state', 'sess_agrclvxixgm232rhxtvaivabha', 'run_agrclvxixg5fwulthywxrvlnoy', 'node_agrclvxpu7nsftwt4lekuwuoci', '');
INSERT INTO public.tokens VALUES ('01a225d6efad77c3de78fe01', 'checkpoint', 'sess_agrclvxixgm232rhxtvaivabha', 'run_agrclvxixg5fwulthywxrvlnoy', 'node_agrclvxpu7nsftwt4lekuwuoci', 'attempt_owizathlnvgc64zm7scgsrhrsa');
INSERT INTO public.tokens VALUES ('01a225d6efadbbbe6df814a7', 'continue', 'sess_agrclvxixgm232rhxtvaivabha', 'run_agrclvxixg5fwulthywxrvlnoy', 'node_agrclvxpu7nsftwt4lekuwuoci', 'attempt_owizathlnvgc64zm7scgsrhrsa');
INSERT INTO public.tokens VALUES ('01a225d6f1dee2ac201b2944', 'state', 'sess_agrclvxixgm232rhxtvaivabha', 'run_agrclvxixg5fwulthywxrvlnoy', 'node_agrclvxr3utnzqqseevqwoqcxe', '');
INSERT INTO public.tokens VALUES ('01a225d6f1de276d6da9f2f2', 'checkpoint', 'sess_agrclvxixgm232rhxtvaivabha', 'run_agrclvxixg5fwulthywxrvlnoy', 'node_agrclvxr3utnzqqseevqwoqcxe', 'attempt_wa7l5cja27kbaywhddxwqa7cz4');
INSERT INTO public.tokens VALUES ('01a225d6f1dec6fe52d4d636', 'continue', 'sess_agrclvxixgm232rhxtvaivabha', 'run_agrclvxixg5fwulthywxrvlnoy', 'node_agrclvxr3utnzqqseevqwoqcxe', 'attempt_wa7l5cja27kbaywhddxwqa7cz4');
INSERT INTO public.tokens VALUES ('01a225d6f3e7edf87c200c95', 'state', 'sess_agrclvxixgm232rhxtvaivabha', 'run_agrclvxixg5fwulthywxrvlnoy', 'node_agrclvxt45jd3en2dnhdte23em', '');
INSERT INTO public.tokens VALUES ('01a225d6f3e766d356f9355c', 'checkpoint', 'sess_agrclvxixgm232rhxtvaivabha', 'run_agrclvxixg5fwulthywxrvlnoy', 'node_agrclvxt45jd3en2dnhdte23em', 'attempt_hpqttz3flftfn5cnjdur5lfa4m');
INSERT INTO public.tokens VALUES ('01a225d6f5d5a59306bbc383', 'state', 'sess_agrclvxvykw3azrtr4la7q5m2m', 'run_agrclvxvykaan6xl3h66rzvyei', 'node_agrclvxvyjigsntdgw6wge45l4', '');
INSERT INTO public.tokens VALUES ('01a225d6f5d57b660b88be64', 'checkpoint', 'sess_agrclvxvykw3azrtr4la7q5m2m', 'run_agrclvxvykaan6xl3h66rzvyei', 'node_agrclvxvyjigsntdgw6wge45l4', 'attempt_5uddyqfyefhe44dbbdnlfxs4au');
INSERT INTO public.tokens VALUES ('01a225d6f5d52d3041663710', 'continue', 'sess_agrclvxvykw3azrtr4la7q5m2m', 'run_agrclvxvykaan6xl3h66rzvyei', 'node_agrclvxvyjigsntdgw6wge45l4', 'attempt_5uddyqfyefhe44dbbdnlfxs4au');
INSERT INTO public.tokens VALUES ('01a225d6f8013113a54ba4a3', 'state', 'sess_agrclvxvykw3azrtr4la7q5m2m', 'run_agrclvxvykaan6xl3h66rzvyei', 'node_agrclvxx535diuuyh6lzo3bpaa', '');
INSERT INTO public.tokens VALUES ('01a225d6f8015b593ac84782', 'checkpoint', 'sess_agrclvxvykw3azrtr4la7q5m2m', 'run_agrclvxvykaan6xl3h66rzvyei', 'node_agrclvxx535diuuyh6lzo3bpaa', 'attempt_vbpdia4i5ohcxfk2wrvq4mnhny');
INSERT INTO public.tokens VALUES ('01a225d6f801386fd833146c', 'continue', 'sess_agrclvxvykw3azrtr4la7q5m2m', 'run_agrclvxvykaan6xl3h66rzvyei', 'node_agrclvxx535diuuyh6lzo3bpaa', 'attempt_vbpdia4i5ohcxfk2wrvq4mnhny');
INSERT INTO public.tokens VALUES ('01a225d6fa2ee9cf38359759', 'state', 'sess_agrclvxvykw3azrtr4la7q5m2m', 'run_agrclvxvykaan6xl3h66rzvyei', 'node_agrclvx2e6azhmubv7pu6v2naa', '');
INSERT INTO public.tokens VALUES ('01a225d6fa2e05c11b269627', 'checkpoint', 'sess_agrclvxvykw3azrtr4la7q5m2m', 'run_agrclvxvykaan6xl3h66rzvyei', 'node_agrclvx2e6azhmubv7pu6v2naa', 'attempt_qy7sunutbw3c7vetahuhtlmfem');
INSERT INTO public.tokens VALUES ('01a225d6fa2f8bed6cc11eb2', 'continue', 'sess_agrclvxvykw3azrtr4la7q5m2m', 'run_agrclvxvykaan6xl3h66rzvyei', 'node_agrclvx2e6azhmubv7pu6v2naa', 'attempt_qy7sunutbw3c7vetahuhtlmfem');
INSERT INTO public.tokens VALUES ('01a225d6fc5678557e7163dc', 'state', 'sess_agrclvxvykw3azrtr4la7q5m2m', 'run_agrclvxvykaan6xl3h66rzvyei', 'node_agrclvx4i4xh7c7qx3uddsimce', '');
INSERT INTO public.tokens VALUES ('01a225d6fe7f77ffcd5c7b33', 'state', 'sess_agrclvx6nthmii4fsurgyaoxba', 'run_agrclvx6obiba4vdqixyewujge', 'node_agrclvx6obi462x2xhwzpcczmy', '');
INSERT INTO public.tokens VALUES ('01a225d6fe8068157756612c', 'checkpoint', 'sess_agrclvx6nthmii4fsurgyaoxba', 'run_agrclvx6obiba4vdqixyewujge', 'node_agrclvx6obi462x2xhwzpcczmy', 'attempt_ucujumcp5ggvf2won5na5prvxm');
INSERT INTO public.tokens VALUES ('01a225d6fe80e757db9c7aca', 'continue', 'sess_agrclvx6nthmii4fsurgyaoxba', 'run_agrclvx6obiba4vdqixyewujge', 'node_agrclvx6obi462x2xhwzpcczmy', 'attempt_ucujumcp5ggvf2won5na5prvxm');
INSERT INTO public.tokens VALUES ('01a225d700e3f0305dbbbe9f', 'state', 'sess_agrclvx6nthmii4fsurgyaoxba', 'run_agrclvx6obiba4vdqixyewujge', 'node_agrclvya4ozmi7pkgzlejs5zeq', '');
INSERT INTO public.tokens VALUES ('01a225d700e3c652c9264b9b', 'checkpoint', 'sess_agrclvx6nthmii4fsurgyaoxba', 'run_agrclvx6obiba4vdqixyewujge', 'node_agrclvya4ozmi7pkgzlejs5zeq', 'attempt_oerfzxng3vpbsgeidbxsau7qbe');
INSERT INTO public.tokens VALUES ('01a225d700e3b9db2c3c88cc', 'continue', 'sess_agrclvx6nthmii4fsurgyaoxba', 'run_agrclvx6obiba4vdqixyewujge', 'node_agrclvya4ozmi7pkgzlejs5zeq', 'attempt_oerfzxng3vpbsgeidbxsau7qbe');
INSERT INTO public.tokens VALUES ('01a225d70430c9120419950d', 'state', 'sess_agrclvyeebf2i4jmivk2taghju', 'run_agrclvyeebsrh64kai7opgypwi', 'node_agrclvyeebhtr4gwj3z5j3hzyq', '');
INSERT INTO public.tokens VALUES ('01a225d7043013dfe8b1adf9', 'checkpoint', 'sess_agrclvyeebf2i4jmivk2taghju', 'run_agrclvyeebsrh64kai7opgypwi', 'node_agrclvyeebhtr4gwj3z5j3hzyq', 'attempt_d5d32voaxvwyqfqfioroif2kry');
INSERT INTO public.tokens VALUES ('01a225d70430ad0d920d61f0', 'continue', 'sess_agrclvyeebf2i4jmivk2taghju', 'run_agrclvyeebsrh64kai7opgypwi', 'node_agrclvyeebhtr4gwj3z5j3hzyq', 'attempt_d5d32voaxvwyqfqfioroif2kry');
INSERT INTO public.tokens VALUES ('01a225d705b7f537f1e5e1ec', 'state', 'sess_agrclvyeebf2i4jmivk2taghju', 'run_agrclvyeebsrh64kai7opgypwi', 'node_agrclvyfw7xh4zqcimwxh4uq3q', '');
INSERT INTO public.tokens VALUES ('01a225d705b798945b945d90', 'checkpoint', 'sess_agrclvyeebf2i4jmivk2taghju', 'run_agrclvyeebsrh64kai7opgypwi', 'node_agrclvyfw7xh4zqcimwxh4uq3q', 'attempt_mm4gohaugixhuiizmzyw7zoj5a');
INSERT INTO public.tokens VALUES ('01a225d705b707754e739c33', 'continue', 'sess_agrclvyeebf2i4jmivk2taghju', 'run_agrclvyeebsrh64kai7opgypwi', 'node_agrclvyfw7xh4zqcimwxh4uq3q', 'attempt_mm4gohaugixhuiizmzyw7zoj5a');
INSERT INTO public.tokens VALUES ('01a225d706288306e53c9919', 'state', 'sess_agrclvyeebf2i4jmivk2taghju', 'run_agrclvyeebsrh64kai7opgypwi', 'node_agrclvygfcdeiecuwprcckczq4', '');
INSERT INTO public.tokens VALUES ('01a225d70628b2479396d953', 'checkpoint', 'sess_agrclvyeebf2i4jmivk2taghju', 'run_agrclvyeebsrh64kai7opgypwi', 'node_agrclvygfcdeiecuwprcckczq4', 'attempt_dve5hj6wu5m764voqif635dr5q');
INSERT INTO public.tokens VALUES ('01a225d7062878af36ea9296', 'continue', 'sess_agrclvyeebf2i4jmivk2taghju', 'run_agrclvyeebsrh64kai7opgypwi', 'node_agrclvygfcdeiecuwprcckczq4', 'attempt_dve5hj6wu5m764voqif635dr5q');
INSERT INTO public.tokens VALUES ('01a225d70688f42eec4eecdf', 'state', 'sess_agrclvyeebf2i4jmivk2taghju', 'run_agrclvyeebsrh64kai7opgypwi', 'node_agrclvygq7dlr2l2uwlrcdhoye', '');
INSERT INTO public.tokens VALUES ('01a225d70688c10be1dcb31b', 'checkpoint', 'sess_agrclvyeebf2i4jmivk2taghju', 'run_agrclvyeebsrh64kai7opgypwi', 'node_agrclvygq7dlr2l2uwlrcdhoye', 'attempt_6y5mn7sqwovzdhmgfpgqqoq4iu');
INSERT INTO public.tokens VALUES ('01a225d7068872b4d516b694', 'continue', 'sess_agrclvyeebf2i4jmivk2taghju', 'run_agrclvyeebsrh64kai7opgypwi', 'node_agrclvygq7dlr2l2uwlrcdhoye', 'attempt_6y5mn7sqwovzdhmgfpgqqoq4iu');
INSERT INTO public.tokens VALUES ('01a225d706e92531a2dac68d', 'state', 'sess_agrclvyeebf2i4jmivk2taghju', 'run_agrclvyeebsrh64kai7opgypwi', 'node_agrclvyg5e7biikseaa52pzb3y', '');


--
-- Data for Name: workflows; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.workflows VALUES ('sha256:4fe5d394cc07011750b53a8da331020b7cedd7d1de28a9508815a112b4795051', '{"description":"Plan → Implement → Review → loop","entry":"plan","id":"dev-cycle","ir_version":1,"limits":{"max_cycles":10,"max_replan_attempts":2,"max_revision_attempts":3},"steps":[{"context_reset":false,"edges":[{"condition":null,"condition_text":null,"default":true,"kind":"normal","label":"implement","max_traversals":null,"target":{"step":"implement"}}],"gate":true,"id":"plan","max_attempts":3,"model":"claude-opus-4-6","notes":"required","output_schema":null,"phase":null,"prompt":"You are the planner in the `dev-cycle` workflow, working on the `plan` stage.\n\nGoal: {{ goal }}\n{% if rejection %}\nA reviewer rejected the previous result of this stage:\n{{ rejection }}\nAddress that feedback before anything else.\n{% endif %}\nDo the work of the `plan` stage as a planner would, and only that stage.\nWhen you advance, write notes that say what you did, what you decided and why, and what the next stage needs to know.","role":"planner","title":"plan"},{"context_reset":true,"edges":[{"condition":null,"condition_text":null,"default":true,"kind":"normal","label":"review","max_traversals":null,"target":{"step":"review"}}],"gate":false,"id":"implement","max_attempts":3,"model":"codex-1","notes":"required","output_schema":null,"phase":null,"prompt":"You are the implementer in the `dev-cycle` workflow, working on the `implement` stage.\n\nGoal: {{ goal }}\n{% if rejection %}\nA reviewer rejected the previous result of this stage:\n{{ rejection }}\nAddress that feedback before anything else.\n{% endif %}\nDo the work of the `implement` stage as a implementer would, and only that stage.\nWhen you advance, write notes that say what you did, what you decided and why, and what the next stage needs to know.","role":"implementer","title":"implement"},{"context_reset":true,"edges":[{"condition":null,"condition_text":null,"default":false,"kind":"loop","label":"loop","max_traversals":null,"target":{"step":"plan"}},{"condition":null,"condition_text":null,"default":true,"kind":"normal","label":"close","max_traversals":null,"target":"complete"}],"gate":true,"id":"review","max_attempts":3,"model":"claude-opus-4-6","notes":"required","output_schema":null,"phase":null,"prompt":"You are the reviewer in the `dev-cycle` workflow, working on the `review` stage.\n\nGoal: {{ goal }}\n{% if rejection %}\nA reviewer rejected the previous result of this stage:\n{{ rejection }}\nAddress that feedback before anything else.\n{% endif %}\nDo the work of the `review` stage as a reviewer would, and only that stage.\nWhen you advance, write notes that say what you did, what you decided and why, and what the next stage needs to know.\n\nThen choose how the cycle ends: `loop` to start another cycle at `plan` because changes are still needed, or `close` when the work is done.","role":"reviewer","title":"review"}],"tags":[],"title":"dev-cycle","variables":[],"version":"1"}');
INSERT INTO public.workflows VALUES ('sha256:825a7afbfa76668de4c15d3cf0ab1ebb12be1230e220a1ef895899485297c228', '{"description":"Reproduce a bug, find its root cause by testing hypotheses, fix it with a regression test, and have a human review the fix.","entry":"reproduce","id":"bug-investigation","ir_version":1,"limits":{"max_cycles":10,"max_replan_attempts":2,"max_revision_attempts":3},"steps":[{"context_reset":false,"edges":[{"condition":null,"condition_text":null,"default":true,"kind":"normal","label":"hypothesize","max_traversals":null,"target":{"step":"hypothesize"}}],"gate":false,"id":"reproduce","max_attempts":3,"model":null,"notes":"required","output_schema":{"properties":{"command":{"description":"The command or steps that trigger the bug.","minLength":1,"type":"string"},"expected":{"description":"What should happen instead.","type":"string"},"observed":{"description":"What actually happens, quoted from the output.","type":"string"},"reproduced":{"description":"Whether the bug was reproduced.","type":"boolean"}},"required":["reproduced","command","observed","expected"],"type":"object"},"phase":"investigate","prompt":"You are investigating a bug.\n\nReport: {{ goal }}\n{% if rejection %}\nYour previous attempt was rejected: {{ rejection }}\n{% endif %}\nReproduce the bug before changing anything.\n1. Read the report carefully and list what is observed versus what is expected.\n2. Find the smallest reliable way to trigger the bug: a failing test, a command, or a script.\n   Prefer a failing automated test, because it becomes the regression test later.\n3. Run it and capture the exact output (error message, stack trace, wrong value).\n4. If you cannot reproduce it, say what you tried and what environment details might matter; do not guess a fix.\n\nDo not modify production code in this step.\nSet the context variable `reproduction` to the command or steps that reproduce the bug.\n","role":null,"title":"Reproduce the bug"},{"context_reset":false,"edges":[{"condition":null,"condition_text":null,"default":true,"kind":"normal","label":"verify","max_traversals":null,"target":{"step":"verify"}}],"gate":false,"id":"hypothesize","max_attempts":3,"model":null,"notes":"required","output_schema":{"properties":{"evidence":{"description":"Code locations and observations that support the hypothesis.","items":{"type":"string"},"type":"array"},"experiment":{"description":"How the verify step will test it.","minLength":1,"type":"string"},"hypothesis":{"minLength":1,"type":"string"}},"required":["hypothesis","evidence","experiment"],"type":"object"},"phase":"investigate","prompt":"Bug: {{ goal }}\nReproduction: {{ reproduction }}\n{% if hypothesis %}\nA previous hypothesis was not confirmed: {{ hypothesis }}\nUse what that experiment showed; do not repeat it.\n{% endif %}\nForm one root-cause hypothesis that explains every observed symptom.\n- Read the code on the failing path; follow the data, not the names.\n- Check recent changes to that code (`git log -p` on the relevant files).\n- State the hypothesis so that an experiment can prove it wrong.\n- Design that experiment: a log line, an assertion, a narrowed test, a debugger breakpoint.\n\nSet the context variable `hypothesis` to your hypothesis.\n","role":null,"title":"Form a root-cause hypothesis"},{"context_reset":false,"edges":[{"condition":"confirmed == true","condition_text":"the experiment confirmed the hypothesis","default":false,"kind":"normal","label":"confirmed","max_traversals":null,"target":{"step":"fix"}},{"condition":null,"condition_text":"the experiment did not confirm the hypothesis (at most three new hypotheses)","default":true,"kind":"normal","label":"not-confirmed","max_traversals":3,"target":{"step":"hypothesize"}}],"gate":false,"id":"verify","max_attempts":3,"model":null,"notes":"required","output_schema":{"properties":{"confirmed":{"type":"boolean"},"result":{"description":"What the experiment showed, quoted where possible.","type":"string"}},"required":["result","confirmed"],"type":"object"},"phase":"investigate","prompt":"Hypothesis: {{ hypothesis }}\nReproduction: {{ reproduction }}\n\nRun the experiment that could prove the hypothesis wrong.\nKeep temporary instrumentation out of the final change; remove it when you are done.\nReport the raw result, then your conclusion.\n\nSet the context variable `confirmed` to true only if the result confirms the hypothesis and rules out the obvious alternatives.\nOtherwise set it to false and the run goes back to form a better hypothesis.\n","role":null,"title":"Verify the hypothesis"},{"context_reset":true,"edges":[{"condition":null,"condition_text":null,"default":true,"kind":"normal","label":"review","max_traversals":null,"target":{"step":"review"}}],"gate":false,"id":"fix","max_attempts":3,"model":null,"notes":"required","output_schema":{"properties":{"files_changed":{"description":"Paths of the files the fix changed.","items":{"minLength":1,"type":"string"},"minItems":1,"type":"array"},"summary":{"description":"The cause and the fix, in two or three sentences.","minLength":1,"type":"string"},"tests_added":{"description":"Number of regression tests added.","minimum":1,"type":"integer"}},"required":["files_changed","tests_added","summary"],"type":"object"},"phase":"fix","prompt":"Bug: {{ goal }}\nConfirmed root cause: {{ hypothesis }}\nReproduction: {{ reproduction }}\n{% if rejection %}\nThe reviewer rejected the previous fix: {{ rejection }}\nAddress every point before anything else.\n{% endif %}\nFix the root cause, not the symptom.\n1. Turn the reproduction into an automated regression test and watch it fail.\n2. Make the smallest change that fixes the cause; keep unrelated refactoring out.\n3. Run the regression test and the existing test suite; all must pass.\n4. Look for the same mistake elsewhere in the code and fix or report it.\n\nList every file you changed and how many tests you added.\n","role":null,"title":"Fix the root cause"},{"context_reset":false,"edges":[],"gate":true,"id":"review","max_attempts":3,"model":null,"notes":"required","output_schema":null,"phase":"review","prompt":"Prepare the fix for human review.\nBug: {{ goal }}\nRoot cause: {{ hypothesis }}\n{% if rejection %}\nThe reviewer asked for changes: {{ rejection }}\nMake them, rerun the tests, and present the result again.\n{% endif %}\nWrite notes a reviewer can check in five minutes:\n- the root cause and the evidence that confirmed it;\n- the diff, file by file, with why each change is needed;\n- the regression test and the command that runs it, with its output before and after the fix;\n- risks, and anything you found but did not change.\n","role":null,"title":"Human review of the fix"}],"tags":["coding","debugging"],"title":"Bug investigation","variables":[{"default":false,"description":"Set to true in the verify step when the experiment confirmed the hypothesis; false otherwise.","layer":"important","name":"confirmed","value_type":"boolean"},{"default":null,"description":"The current root-cause hypothesis, one or two sentences.","layer":"critical","name":"hypothesis","value_type":"string"},{"default":null,"description":"The exact command or steps that reproduce the bug.","layer":"critical","name":"reproduction","value_type":"string"}],"version":"1"}');
INSERT INTO public.workflows VALUES ('sha256:51d65bdc96ccc644d656fdc88ed2ba944a15953a548ae39d51669c1f60682cf7', '{"description":"","entry":"audit","id":"audited","ir_version":1,"limits":{"max_cycles":10,"max_replan_attempts":2,"max_revision_attempts":3},"rules":{"audit":{"audit":true},"work":{"status_report":"graduated"}},"steps":[{"context_reset":false,"edges":[{"condition":null,"condition_text":null,"default":true,"kind":"normal","label":"work","max_traversals":null,"target":{"step":"work"}}],"gate":false,"id":"audit","max_attempts":3,"model":null,"notes":"optional","output_schema":null,"phase":null,"prompt":"Audit the change.","role":null,"title":"audit"},{"context_reset":false,"edges":[{"condition":null,"condition_text":null,"default":true,"kind":"normal","label":"done","max_traversals":null,"target":{"step":"done"}}],"gate":false,"id":"work","max_attempts":3,"model":null,"notes":"optional","output_schema":null,"phase":null,"prompt":"Do the work.","role":null,"title":"work"},{"context_reset":false,"edges":[],"gate":false,"id":"done","max_attempts":3,"model":null,"notes":"optional","output_schema":null,"phase":null,"prompt":"Wrap up.","role":null,"title":"done"}],"tags":[],"title":"Audited change","variables":[],"version":"1"}');
INSERT INTO public.workflows VALUES ('sha256:9cc2a75ce0ff3b004b25421059743ea3bd24ee6a61e45ebcec3d8ebd05a3a35b', '{"description":"Review a change for correctness, tests, security and clarity, decide whether it can merge, and write the review.","entry":"scope","id":"code-review","ir_version":1,"limits":{"max_cycles":10,"max_replan_attempts":2,"max_revision_attempts":3},"steps":[{"context_reset":false,"edges":[{"condition":null,"condition_text":null,"default":true,"kind":"normal","label":"assess","max_traversals":null,"target":{"step":"assess"}}],"gate":false,"id":"scope","max_attempts":3,"model":null,"notes":"optional","output_schema":{"properties":{"files":{"items":{"type":"string"},"type":"array"},"intent":{"minLength":1,"type":"string"}},"required":["intent","files"],"type":"object"},"phase":"understand","prompt":"You are reviewing a change.\nChange to review: {{ goal }}\n{% if focus %}The requester asks for extra attention on: {{ focus }}{% endif %}\n{% if missing_context %}\nThe last review could not be decided because this was missing: {{ missing_context }}\nFind it first; once you have it, set the context variable `missing_context` to \"\".\n{% endif %}\n\nBefore judging anything, understand it.\n- Read the description, the linked issue and the whole diff.\n- Say in one paragraph what the change intends to do and why.\n- List the files it touches and the behaviour each one changes.\n- Note what the diff does not show but the change depends on (callers, configuration, migrations).\n","role":null,"title":"Understand the change"},{"context_reset":false,"edges":[{"condition":null,"condition_text":null,"default":true,"kind":"normal","label":"decide","max_traversals":null,"target":{"step":"decide"}}],"gate":false,"id":"assess","max_attempts":3,"model":null,"notes":"required","output_schema":{"properties":{"findings":{"items":{"properties":{"file":{"type":"string"},"line":{"minimum":1,"type":"integer"},"message":{"minLength":1,"type":"string"},"severity":{"enum":["blocker","major","minor","nit"]},"suggestion":{"type":"string"}},"required":["severity","file","message"],"type":"object"},"type":"array"}},"required":["findings"],"type":"object"},"phase":"review","prompt":"Assess the change: {{ goal }}\n{% if focus %}Give extra attention to: {{ focus }}{% endif %}\n\nCheck, in this order:\n1. Correctness: edge cases, error handling, concurrency, off-by-one, null and empty inputs.\n2. Tests: is the new behaviour tested, would the tests fail without the change?\n3. Security: input validation, injection, secrets, permissions.\n4. Compatibility: public APIs, stored data, configuration.\n5. Clarity: names, comments that explain why, dead code.\n\nRecord each finding with a severity: blocker (must not merge), major (must fix before merge), minor, or nit.\nCite the file and line; suggest a concrete fix.\nSet the context variable `blocking_findings` to the number of blocker and major findings.\n","role":null,"title":"Assess the change"},{"context_reset":false,"edges":[{"condition":"missing_context != \"\"","condition_text":"the change cannot be judged without more context","default":false,"kind":"replan","label":"needs-context","max_traversals":null,"target":{"step":"scope"}},{"condition":"blocking_findings == 0","condition_text":"no blocker or major finding remains","default":false,"kind":"normal","label":"approve","max_traversals":null,"target":{"step":"approve"}},{"condition":null,"condition_text":"at least one blocker or major finding remains","default":true,"kind":"normal","label":"request-changes","max_traversals":null,"target":{"step":"request-changes"}}],"gate":false,"id":"decide","max_attempts":3,"model":null,"notes":"optional","output_schema":null,"phase":"review","prompt":"Decide the outcome of the review of: {{ goal }}\nBlocker and major findings: {{ blocking_findings }}\n\nThe outcome follows from the context:\n- if the change cannot be judged without information you do not have, set the context variable `missing_context` to what is missing, and the review goes back to understanding the change;\n- otherwise, with no blocker or major finding the review approves, and with at least one it requests changes.\n","role":null,"title":"Decide"},{"context_reset":false,"edges":[],"gate":false,"id":"approve","max_attempts":3,"model":null,"notes":"required","output_schema":{"properties":{"comment":{"minLength":1,"type":"string"}},"required":["comment"],"type":"object"},"phase":"report","prompt":"Write the approval comment for: {{ goal }}\nSay what you checked, what you liked, and list the minor findings and nits as optional suggestions.\nKeep it short and specific.\n","role":null,"title":"Write the approval"},{"context_reset":false,"edges":[],"gate":true,"id":"request-changes","max_attempts":3,"model":null,"notes":"required","output_schema":{"properties":{"blocking":{"items":{"type":"string"},"minItems":1,"type":"array"},"comment":{"minLength":1,"type":"string"}},"required":["comment","blocking"],"type":"object"},"phase":"report","prompt":"Write the change request for: {{ goal }}\n{% if rejection %}\nA human asked you to revise the review: {{ rejection }}\n{% endif %}\nStart with the blocker and major findings, each with file, line, why it matters and a concrete fix.\nThen list minor findings and nits, clearly marked as optional.\nBe direct and kind; review the code, not the author.\nA human approves the review before it is posted.\n","role":null,"title":"Write the change request"}],"tags":["coding","review"],"title":"Code review","variables":[{"default":"","description":"Areas the requester wants extra attention on; may be empty.","layer":"important","name":"focus","value_type":"string"},{"default":0,"description":"Number of blocker or major findings from the assessment.","layer":"important","name":"blocking_findings","value_type":"integer"},{"default":"","description":"What the reviewer needs to know and could not find; empty when nothing is missing.","layer":"important","name":"missing_context","value_type":"string"}],"version":"1"}');


--
-- Name: texts_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.texts_id_seq', 40, true);


--
-- Name: claims claims_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.claims
    ADD CONSTRAINT claims_key PRIMARY KEY (session, key);


--
-- Name: events events_id_unique; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_id_unique UNIQUE (id);


--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (session, seq);


--
-- Name: heads heads_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.heads
    ADD CONSTRAINT heads_pkey PRIMARY KEY (session);


--
-- Name: nodes nodes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.nodes
    ADD CONSTRAINT nodes_pkey PRIMARY KEY (id);


--
-- Name: runs runs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.runs
    ADD CONSTRAINT runs_pkey PRIMARY KEY (id);


--
-- Name: sessions sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_pkey PRIMARY KEY (id);


--
-- Name: switchyard_schema switchyard_schema_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.switchyard_schema
    ADD CONSTRAINT switchyard_schema_pkey PRIMARY KEY (singleton);


--
-- Name: text_words text_words_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.text_words
    ADD CONSTRAINT text_words_pkey PRIMARY KEY (word, text);


--
-- Name: texts texts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.texts
    ADD CONSTRAINT texts_pkey PRIMARY KEY (id);


--
-- Name: tokens tokens_node_attempt_kind_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tokens
    ADD CONSTRAINT tokens_node_attempt_kind_key UNIQUE (node, attempt, kind);


--
-- Name: tokens tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tokens
    ADD CONSTRAINT tokens_pkey PRIMARY KEY (nonce);


--
-- Name: workflows workflows_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.workflows
    ADD CONSTRAINT workflows_pkey PRIMARY KEY (hash);


--
-- Name: nodes_by_parent; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX nodes_by_parent ON public.nodes USING btree (parent);


--
-- Name: nodes_by_run; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX nodes_by_run ON public.nodes USING btree (run, created_seq);


--
-- Name: runs_by_session; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX runs_by_session ON public.runs USING btree (session);


--
-- Name: sessions_by_branch; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sessions_by_branch ON public.sessions USING btree (git_branch);


--
-- Name: sessions_by_head; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sessions_by_head ON public.sessions USING btree (git_head);


--
-- Name: sessions_by_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sessions_by_status ON public.sessions USING btree (status, updated_at_ms DESC, id DESC);


--
-- Name: sessions_by_update; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sessions_by_update ON public.sessions USING btree (updated_at_ms DESC, id DESC);


--
-- Name: sessions_by_workflow; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sessions_by_workflow ON public.sessions USING btree (workflow_id, updated_at_ms DESC, id DESC);


--
-- Name: sessions_by_workspace; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX sessions_by_workspace ON public.sessions USING btree (workspace);


--
-- Name: texts_by_node; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX texts_by_node ON public.texts USING btree (node, seq);


--
-- Name: texts_by_words; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX texts_by_words ON public.texts USING gin (words);


--
-- Name: tokens_by_session; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX tokens_by_session ON public.tokens USING btree (session);


--
-- Name: nodes nodes_parent_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.nodes
    ADD CONSTRAINT nodes_parent_fkey FOREIGN KEY (parent) REFERENCES public.nodes(id);


--
-- Name: nodes nodes_run_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.nodes
    ADD CONSTRAINT nodes_run_fkey FOREIGN KEY (run) REFERENCES public.runs(id);


--
-- Name: runs runs_session_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.runs
    ADD CONSTRAINT runs_session_fkey FOREIGN KEY (session) REFERENCES public.sessions(id);


--
-- PostgreSQL database dump complete
--


