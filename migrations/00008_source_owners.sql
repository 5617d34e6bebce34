-- +goose Up

-- source_owners: which organisation owns a registrable domain, so that independence counts one
-- organisation as one publisher (apnews.com and ap.org are both the Associated Press). The worker
-- reads it (refreshed every minute) and gives each search result on a listed domain its
-- organisation; two results of one organisation are then one source, whatever their domains
-- and their pages' own publisher names.
--
-- domain is a registrable domain by the Public Suffix List, lower case, without "www." (the
-- worker looks results up by their registrable domain, so a subdomain row would never match:
-- `corpus owners add` refuses one and names the domain to add instead). Editors extend the table
-- with `corpus owners add DOMAIN ORGANISATION` or with SQL:
--   INSERT INTO source_owners (domain, organisation, source)
--   VALUES ('example-news.com', 'Example Media Group', 'editor: group annual report 2026')
--   ON CONFLICT (domain) DO UPDATE SET organisation = EXCLUDED.organisation, source = EXCLUDED.source;
--
-- The rows below are a SEED, not an authority: a few wire agencies, broadcasters and papers that
-- publish under more than one domain, each as the organisation's own sites name the domains
-- (source says which). Ownership changes: check an entry before relying on it, and add the
-- newsroom's own knowledge. See docs/independence.md.
CREATE TABLE source_owners (
    domain        text PRIMARY KEY
                  CHECK (domain = lower(domain) AND domain ~ '^[^\s/:@]+\.[^\s/:@]+$' AND domain !~ '^www\.'),
    organisation  text NOT NULL CHECK (btrim(organisation) <> '' AND length(organisation) <= 200),
    source        text NOT NULL DEFAULT '',
    added_at      timestamptz NOT NULL DEFAULT now()
);

INSERT INTO source_owners (domain, organisation, source) VALUES
    ('apnews.com',         'Associated Press', 'seed: AP''s news site; ap.org is AP''s corporate site and links to it'),
    ('ap.org',             'Associated Press', 'seed: AP''s corporate site (ap.org), which names apnews.com as its news site'),
    ('reuters.com',        'Reuters', 'seed: Reuters'' news site'),
    ('reutersagency.com',  'Reuters', 'seed: Reuters'' agency (wire customers) site, linked from reuters.com'),
    ('thomsonreuters.com', 'Reuters', 'seed: Thomson Reuters, owner of Reuters, as both sites say'),
    ('afp.com',            'Agence France-Presse', 'seed: AFP''s site, home of its fact-check pages (factuel.afp.com, factcheck.afp.com)'),
    ('bbc.co.uk',          'BBC', 'seed: the BBC''s UK site'),
    ('bbc.com',            'BBC', 'seed: the BBC''s international site, linked from bbc.co.uk'),
    ('theguardian.com',    'Guardian Media Group', 'seed: The Guardian''s site'),
    ('guardian.co.uk',     'Guardian Media Group', 'seed: The Guardian''s former domain, which redirects to theguardian.com'),
    ('nytimes.com',        'The New York Times Company', 'seed: The New York Times'' site'),
    ('nyt.com',            'The New York Times Company', 'seed: short domain of The New York Times, which redirects to nytimes.com'),
    ('washingtonpost.com', 'The Washington Post', 'seed: The Washington Post''s site'),
    ('wapo.st',            'The Washington Post', 'seed: The Washington Post''s link shortener'),
    ('cbc.ca',             'CBC/Radio-Canada', 'seed: CBC, the English service of Canada''s public broadcaster'),
    ('radio-canada.ca',    'CBC/Radio-Canada', 'seed: Radio-Canada, the French service of the same broadcaster'),
    ('abc.net.au',         'Australian Broadcasting Corporation', 'seed: the ABC''s site'),
    ('dw.com',             'Deutsche Welle', 'seed: Deutsche Welle''s site'),
    ('dw.de',              'Deutsche Welle', 'seed: Deutsche Welle''s German domain, which redirects to dw.com'),
    ('tagesschau.de',      'ARD', 'seed: ARD''s news service, as its imprint says'),
    ('ard.de',             'ARD', 'seed: ARD''s site'),
    ('daserste.de',        'ARD', 'seed: ARD''s first channel, as its imprint says'),
    ('francetvinfo.fr',    'France Télévisions', 'seed: franceinfo''s site, published by France Télévisions as its legal notice says'),
    ('france.tv',          'France Télévisions', 'seed: France Télévisions'' streaming site'),
    ('radiofrance.fr',     'Radio France', 'seed: Radio France''s site, which carries its stations'' pages (France Inter, France Culture)'),
    ('rtve.es',            'RTVE', 'seed: Spain''s public broadcaster'),
    ('rai.it',             'RAI', 'seed: Italy''s public broadcaster'),
    ('rainews.it',         'RAI', 'seed: RAI''s news site'),
    ('nos.nl',             'NOS', 'seed: the Netherlands'' public news broadcaster'),
    ('rtp.pt',             'RTP', 'seed: Portugal''s public broadcaster');

-- +goose Down
DROP TABLE source_owners;
