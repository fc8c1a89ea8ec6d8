import { ToolDescriptorSchema, type ToolDescriptorInput } from "@afw/contracts";
import { describe, expect, it } from "vitest";
import { completeIdDependencies, givesIds, idProfile, type IdProfile } from "./id-dependencies.js";
import { createTextAnalyzer } from "./text-analysis.js";
import { buildToolDocument } from "./tool-document.js";

const analyzer = createTextAnalyzer();
const tool = (server: string, name: string, description: string, required: string[] = []) =>
  ToolDescriptorSchema.parse({
    server,
    name,
    description,
    inputSchema: { type: "object", properties: Object.fromEntries([...required, "limit"].map((p) => [p, { type: "string" }])), required },
  } satisfies ToolDescriptorInput);
const catalog = [
  tool("films", "get_movie_credits", "Get the cast and crew of a movie.", ["movie_id"]),
  tool("films", "get_movie_reviews", "Get the user reviews of a movie.", ["movie_id"]),
  tool("films", "get_movie_images", "Get the images of a movie.", ["movie_id"]),
  tool("films", "get_person", "Get a person's details.", ["person_id"]),
  tool("films", "popular_movies", "The popular movies of today."),
  tool("films", "search_movies", "Search for movies by their title."),
  tool("films", "search_people", "Search for people by name. Does not search movies."),
  tool("films", "list_movie_genres", "The genres of movies."),
  tool("music", "get_album", "Get an album.", ["id"]),
  tool("music", "search", "Search for albums, artists and tracks."),
  tool("other", "search_movies", "Search for movies somewhere else."),
];
const profiles = new Map<string, IdProfile>(catalog.map((t) => [`${t.server}/${t.name}`, idProfile(buildToolDocument(t, analyzer), analyzer)]));
const ranked = (...ids: string[]) => ids.map((id, at) => ({ id, server: id.split("/")[0]!, score: 1 - at / 10 }));
const ids = (tools: readonly { id: string }[]) => tools.map((t) => t.id);

describe("idProfile", () => {
  it("reads the entities a tool needs ids of, from `<entity>_id` or a bare `id` and the tool's name", () => {
    expect(profiles.get("films/get_movie_credits")!.needs).toEqual(["movi"]);
    expect(profiles.get("music/get_album")!.needs).toEqual(["album"]);
    expect(profiles.get("films/popular_movies")!.needs).toEqual([]);
  });

  it("reads what a finder finds from its name and first sentence only", () => {
    expect(profiles.get("films/search_movies")!.finds.get("movi")).toBe(0);
    expect(profiles.get("films/search_people")!.finds.has("movi")).toBe(false);
    expect(profiles.get("music/search")!.finds.get("album")).toBe(2);
    expect(profiles.get("films/list_movie_genres")!.finds.get("movi")).toBe(1);
    // no search or list verb in its name: no finder
    expect(profiles.get("films/popular_movies")!.finds.size).toBe(0);
  });
});

describe("idProfile: finders and pointers beyond search and list verbs", () => {
  const described = (server: string, name: string, description: string, parameters: Record<string, string>) =>
    ToolDescriptorSchema.parse({
      server,
      name,
      description,
      inputSchema: { type: "object", properties: Object.fromEntries(Object.entries(parameters).map(([p, d]) => [p, { type: "string", description: d }])), required: Object.keys(parameters) },
    } satisfies ToolDescriptorInput);
  const travel = [
    described("trips", "TripsSearchLocation", "Search for locations using a query string.", { query: "A city name." }),
    described("trips", "Trips_Search_Restaurant_Location", "Location details for restaurants.", { query: "The place." }),
    described("trips", "TripsSearchHotels", "Available hotels in a location.", { geoId: "Geo ID of the location retrieved from the Search Location API." }),
    described("trips", "Trips_Weather", "The weather.", { city: "The city." }),
    described("trips", "Trips_Hotel_Photos", "Photos of a hotel.", { hotelId: "The hotel id." }),
    described("songs", "get_artist_id_by_name", "The artist's id from their name.", { name: "The artist's name." }),
    described("songs", "get_artist_overview", "An artist's biography.", { artistId: "The id of the artist." }),
    described("songs", "list_top_tracks", "Top tracks.", { region: "A region." }),
  ];
  const travelProfiles = new Map<string, IdProfile>(travel.map((t) => [`${t.server}/${t.name}`, idProfile(buildToolDocument(t, analyzer), analyzer)]));
  const profileOf = (id: string) => travelProfiles.get(id);

  it("reads a tool whose name says it gives an entity's id as a finder of that entity", () => {
    expect(profileOf("songs/get_artist_id_by_name")!.finds.get("artist")).toBe(0);
    expect(profileOf("songs/get_artist_overview")!.finds.size).toBe(0);
    expect(profileOf("trips/TripsSearchLocation")!.ownNameWords).toEqual(["search", "location"]);
  });

  it("adds the tool a required parameter's description names, not the tool whose name merely holds its words", () => {
    const list = ranked("trips/TripsSearchHotels", "trips/Trips_Weather", "songs/list_top_tracks", "trips/Trips_Hotel_Photos", "songs/get_artist_overview", "trips/Trips_Search_Restaurant_Location", "trips/TripsSearchLocation");
    const completed = ids(completeIdDependencies(list, profileOf, "hotels in Lisbon for May 3, 2025"));
    expect(completed.slice(0, 5)).toContain("trips/TripsSearchLocation");
    expect(completed.slice(0, 5)).not.toContain("trips/Trips_Search_Restaurant_Location");
  });

  it("prefers a finder that takes a name or query to one that lists by filters, for a thing the task names", () => {
    const films = [
      described("films", "get_movie_release_dates", "Release dates of a movie.", { movie_id: "The movie." }),
      described("films", "discover_movie", "Discover movies by filters.", {}),
      described("films", "search_movie", "Search for movies.", { query: "The text to search for." }),
      described("films", "movie_upcoming", "Upcoming movies.", {}),
      described("films", "movie_popular", "Popular movies.", {}),
      described("films", "movie_now_playing", "Movies in theatres.", {}),
    ];
    const filmProfiles = new Map(films.map((t) => [`${t.server}/${t.name}`, idProfile(buildToolDocument(t, analyzer), analyzer)]));
    const list = ranked("films/get_movie_release_dates", "films/movie_upcoming", "films/discover_movie", "films/movie_popular", "films/movie_now_playing", "films/search_movie");
    expect(filmProfiles.get("films/search_movie")!.byName).toBe(true);
    expect(filmProfiles.get("films/discover_movie")!.byName).toBe(false);
    expect(ids(completeIdDependencies(list, (id) => filmProfiles.get(id), 'the release date of "The Matrix"')).slice(0, 5)).toContain("films/search_movie");
  });

  it("finds an artist's id through the tool named for it", () => {
    const list = ranked("songs/get_artist_overview", "trips/Trips_Weather", "songs/list_top_tracks", "trips/TripsSearchHotels", "trips/Trips_Hotel_Photos", "songs/get_artist_id_by_name");
    expect(ids(completeIdDependencies(list, profileOf, "a biography of Bad Bunny")).slice(0, 5)).toContain("songs/get_artist_id_by_name");
  });
});

describe("completeIdDependencies", () => {
  const list = ranked(
    "films/get_movie_credits",
    "films/get_movie_reviews",
    "films/get_movie_images",
    "films/popular_movies",
    "films/get_person",
    "other/search_movies",
    "films/search_people",
    "films/search_movies",
  );

  it("moves the finder of a needed id of the same server into the first five", () => {
    const completed = completeIdDependencies(list, (id) => profiles.get(id), "who starred in the movie Heat");
    expect(ids(completed).slice(0, 5)).toEqual(["films/get_movie_credits", "films/get_movie_reviews", "films/get_movie_images", "films/popular_movies", "films/search_movies"]);
    expect(completed).toHaveLength(list.length);
  });

  it("changes nothing when the task gives ids or a finder is among the first five", () => {
    expect(ids(completeIdDependencies(list, (id) => profiles.get(id), "credits of movie 55012"))).toEqual(ids(list));
    const found = ranked("films/get_movie_credits", "films/search_movies", "films/get_movie_reviews", "films/popular_movies", "films/get_person", "films/search_people");
    expect(ids(completeIdDependencies(found, (id) => profiles.get(id), "who starred in Heat"))).toEqual(ids(found));
  });

  it("prefers a search tool with the entity in its name to a less direct finder among the first five", () => {
    const genres = ranked("films/get_movie_credits", "films/list_movie_genres", "films/get_movie_reviews", "films/popular_movies", "films/get_person", "films/search_movies");
    expect(ids(completeIdDependencies(genres, (id) => profiles.get(id), "who starred in Heat")).slice(0, 5)).toContain("films/search_movies");
  });

  it("tags the finder with the step of the tool that needs it", () => {
    const stepped = list.map((t, at) => ({ ...t, step: at % 2 }));
    const completed = completeIdDependencies(stepped, (id) => profiles.get(id), "who starred in the movie Heat");
    expect(completed[4]).toMatchObject({ id: "films/search_movies", step: 0 });
  });

  it("tells ids from years and small numbers", () => {
    expect(givesIds("movie 550")).toBe(true);
    expect(givesIds("track 4uLU6hMCjMI75M1A2tKUQC")).toBe(true);
    expect(givesIds("movies of 2021 rated above 7")).toBe(false);
    expect(givesIds("the 2 Broke Girls poster")).toBe(false);
    expect(givesIds("release v2-beta of 1999-2024")).toBe(false);
    expect(givesIds("ticket ab-0123")).toBe(true);
  });

  it("reads long hyphenated runs in one pass (no backtracking over their boundaries)", () => {
    // every hyphen is a word boundary a backtracking pattern would restart from
    const words = "a-".repeat(50_000);
    expect(givesIds(words)).toBe(false);
    expect(givesIds(`${words}7`)).toBe(true);
    expect(givesIds(`-${"-".repeat(50_000)}x9`)).toBe(false);
    expect(givesIds(`${"1-".repeat(50_000)}x`)).toBe(true);
  });
});
