" SPDX-License-Identifier: GPL-3.0-or-later
" T600's check of Vim's runtime conventions (issue 31), with Vim's own means, in each editor: every
" ftplugin's b:undo_ftplugin undoes each option, mapping and autocommand it made; its mappings are
" buffer-local <Plug>(maildex-...) ones with default keys a user can turn off or replace; it sets no
" global option; plugin/ loads nothing from autoload/; :helptags makes the help's tags without an
" error and every |tag| the help points to exists; every key is as :help maildex and doc/vim.md
" say, in every buffer, and they name no key the buffer lacks. No maildex command runs here.

let s:filetypes = ['maildexhello', 'maildexsearch', 'maildexshow', 'maildextree', 'mail.maildexcompose',
      \ 'maildexerrors']

" Starting Vim with the plugin sources plugin/maildex.vim only: the rest waits in autoload/.
function! Step_01_lazy() abort
  let l:scripts = split(execute('scriptnames'), "\n")
  call assert_equal(1, len(filter(copy(l:scripts), 'v:val =~# "plugin/maildex\\.vim$"')), join(l:scripts, ' | '))
  call assert_equal([], filter(copy(l:scripts), 'v:val =~# "autoload/maildex"'))
  call assert_equal(2, exists(':Maildex'))
  call assert_equal(2, exists(':MaildexTree'))
endfunction

" Every option's value, local (window and buffer) and global, but those the filetype itself sets.
function! s:options() abort
  let l:values = {}
  for l:name in getcompletion('', 'option')
    if index(['filetype', 'syntax', 'modified', 'scroll'], l:name) < 0 && exists('&' . l:name)
      silent! let l:values['l:' . l:name] = eval('&l:' . l:name)
      silent! let l:values['g:' . l:name] = eval('&g:' . l:name)
    endif
  endfor
  return l:values
endfunction

" The mappings that are not buffer-local, in every mode.
function! s:global_maps() abort
  return filter(split(execute('map') . "\n" . execute('map!'), "\n"),
        \ 'v:val !=# "" && v:val !~# "^No mapping found" && v:val !~# "^\\S*\\s\\+\\S\\+\\s\\+[*&]\\?@"')
endfunction

function! s:buffer_maps() abort
  return filter(split(execute('map <buffer>') . "\n" . execute('map! <buffer>'), "\n"),
        \ 'v:val !=# "" && v:val !~# "^No mapping found"')
endfunction

" For each filetype, with `filetype plugin on` as a user has it: loading it sets b:undo_ftplugin,
" changes no global option and maps nothing globally; running b:undo_ftplugin (as Vim does when the
" filetype changes) gives every option its value back and leaves no mapping or autocommand.
function! Step_02_undo_ftplugin() abort
  filetype plugin on
  " Vim's own mail ftplugin maps <LocalLeader>q and does not undo it: not ours to check
  let g:no_mail_maps = 1
  for l:ft in s:filetypes
    new
    let l:options = s:options()
    let l:global_maps = s:global_maps()
    execute 'setlocal filetype=' . l:ft
    call assert_true(exists('b:undo_ftplugin'), l:ft . ': b:undo_ftplugin')
    call assert_notequal([], s:buffer_maps(), l:ft . ': its keys')
    call assert_equal(l:global_maps, s:global_maps(), l:ft . ': global mappings')
    call assert_equal(filter(copy(l:options), 'v:key =~# "^g:"'), filter(s:options(), 'v:key =~# "^g:"'),
          \ l:ft . ': global options')
    call assert_equal([], filter(s:buffer_maps(), 'v:val !~# "<Plug>(maildex-\\|maildex#"'),
          \ l:ft . ': only <Plug>(maildex-...) mappings and the keys mapped to them')
    execute b:undo_ftplugin
    call assert_equal([], s:buffer_maps(), l:ft . ': mappings after b:undo_ftplugin')
    call assert_equal(l:options, s:options(), l:ft . ': options after b:undo_ftplugin')
    call assert_equal([], filter(split(execute('autocmd'), "\n"), 'v:val =~# "<buffer=' . bufnr('%') . '>"'),
          \ l:ft . ': autocommands after b:undo_ftplugin')
    bwipeout!
  endfor
  unlet g:no_mail_maps
endfunction

" The defaults give way: none with g:maildex_no_mappings (nor with Vim's g:no_plugin_maps), and a
" key a user maps to a <Plug> mapping replaces that one's default key.
function! Step_03_user_keys() abort
  let g:maildex_no_mappings = 1
  new
  setlocal filetype=maildexsearch
  call assert_equal([], filter(s:buffer_maps(), 'v:val !~# "<Plug>(maildex-"'))
  call assert_equal(':<C-U>call maildex#search#next(v:count1)<CR>', maparg('<Plug>(maildex-search-next)', 'n'))
  bwipeout!
  unlet g:maildex_no_mappings
  let g:no_plugin_maps = 1
  new
  setlocal filetype=maildexshow
  call assert_equal('', maparg('n', 'n'))
  bwipeout!
  unlet g:no_plugin_maps
  nmap J <Plug>(maildex-search-next)
  new
  setlocal filetype=maildexsearch
  call assert_equal('', maparg('n', 'n'), 'n is not mapped when J is')
  call assert_equal('<Plug>(maildex-search-previous)', maparg('p', 'n'))
  bwipeout!
  nunmap J
endfunction

" :helptags makes the tags of doc/maildex.txt with no error (a duplicate tag is one); every |link|
" of the help is a tag of it or of Vim's own help.
function! Step_04_helptags() abort
  let l:doc = $MAILDEX_VIM_PLUGIN . '/doc'
  call delete(l:doc . '/tags')
  let v:errmsg = ''
  try
    execute 'helptags' fnameescape(l:doc)
  catch
    call assert_report('helptags: ' . v:exception)
  endtry
  call assert_equal('', v:errmsg)
  let l:tags = map(readfile(l:doc . '/tags'), 'split(v:val, "\t")[0]')
  call assert_equal(len(l:tags), len(uniq(sort(copy(l:tags)))), 'no tag twice')
  let l:text = readfile(l:doc . '/maildex.txt')
  let l:defined = []
  let l:links = []
  for l:line in l:text
    " examples (after a line ending in >, until a line starting with <) are not help text
    call substitute(l:line, '\*\([^* \t|]\+\)\*', '\=add(l:defined, submatch(1))', 'g')
    call substitute(l:line, '|\([^| \t]\+\)|', '\=add(l:links, submatch(1))', 'g')
  endfor
  call assert_equal(sort(copy(l:defined)), sort(copy(l:tags)), 'the tags file holds the *tags* of the help')
  for l:link in uniq(sort(l:links))
    if index(l:tags, l:link) < 0
      try
        execute 'help' escape(l:link, ' ')
        helpclose
      catch
        call assert_report('|' . l:link . '| is no tag: ' . v:exception)
      endtry
    endif
  endfor
  " and :help finds the plugin's own
  execute 'help maildex-tree'
  call assert_match('\*maildex-tree\*', getline('.'))
  helpclose
endfunction

" The keys of the help's table (KEYS AND HOW TO CHANGE THEM): filetype -> [[key, <Plug>, modes]].
function! s:help_table(text) abort
  let l:table = {}
  let l:ft = ''
  let l:in = 0
  for l:line in a:text
    if l:line =~# '\*maildex-mappings\*'
      let l:in = 1
    elseif l:in && l:line =~# '^====='
      break
    elseif l:in && l:line =~# '^\S.*(\([a-z.]\+\)):$'
      let l:ft = matchstr(l:line, '(\zs[a-z.]\+\ze):$')
      let l:table[l:ft] = []
    elseif l:in && l:ft !=# '' && l:line =~# '^\t[^\t]\+\t[*|]<Plug>'
      let l:m = matchlist(l:line, '^\t\([^\t]\+\)\t[*|]\(<Plug>(maildex-[a-z-]\+)\)[*|]\(.*\)$')
      call add(l:table[l:ft], [s:key(l:m[1]), l:m[2], l:m[3] =~# 'Visual' ? 'nx' : 'n'])
    endif
  endfor
  return l:table
endfunction

" A key as the help writes it (<CR>, CTRL-C CTRL-A) as maparg() takes it.
function! s:key(text) abort
  return substitute(substitute(a:text, 'CTRL-\(\a\)', '<C-\1>', 'g'), '> <', '><', 'g')
endfunction

" The keys the help's section SECTION (*maildex-hello* ...) describes, as s:key() gives them.
function! s:help_section(text, section) abort
  let l:keys = []
  let l:start = index(a:text, a:text[match(a:text, '\*' . a:section . '\*')])
  for l:line in a:text[l:start + 1 :]
    if l:line =~# '^====='
      break
    endif
    let l:field = matchstr(l:line, '^\t\zs[^\t]\+\ze\t')
    if l:field !=# '' && l:field !~# '^:'
      call extend(l:keys, map(split(substitute(l:field, 'CTRL-\a\zs \zeCTRL', '_', 'g')), 's:key(substitute(v:val, "_", " ", "g"))'))
    endif
  endfor
  return sort(l:keys)
endfunction

" :help maildex and doc/vim.md against the mappings each buffer gets: every key of the help's table
" is mapped in its buffer to the <Plug> mapping the table names (in Visual mode too where it says
" so), every key the buffer maps is in the table, each buffer's section of the help describes
" exactly its keys, and doc/vim.md's table names each of them (and no other).
function! Step_05_keys_as_documented() abort
  let l:text = readfile($MAILDEX_VIM_PLUGIN . '/doc/maildex.txt')
  let l:table = s:help_table(l:text)
  call assert_equal(sort(copy(s:filetypes)), sort(keys(l:table)), 'the filetypes of the help''s table')
  let l:sections = {'maildexhello': 'maildex-hello', 'maildexsearch': 'maildex-search',
        \ 'maildextree': 'maildex-tree', 'maildexshow': 'maildex-show', 'mail.maildexcompose': 'maildex-compose'}
  let l:md = readfile($MAILDEX_VIM_DOC)
  let l:rows = {'start page': 'maildexhello', 'list': 'maildexsearch', 'tree': 'maildextree',
        \ 'thread': 'maildexshow', 'mail buffer': 'mail.maildexcompose', 'errors': 'maildexerrors'}
  " what the keys column of doc/vim.md's rows names in backquotes that is not a key of that buffer
  let l:prose = {'maildexhello': ['G', 'maildex new'], 'maildexsearch': ['Tab'], 'maildextree': [],
        \ 'maildexshow': ['zo', 'zc'], 'mail.maildexcompose': [':MaildexSend', ':MaildexAttach FILE', ':w', 'Ctrl-X Ctrl-O'],
        \ 'maildexerrors': []}
  for l:ft in s:filetypes
    new
    execute 'setlocal filetype=' . l:ft
    let l:keys = []
    for [l:key, l:plug, l:modes] in get(l:table, l:ft, [])
      call add(l:keys, l:key)
      for l:mode in split(l:modes, '\zs')
        call assert_equal(l:plug, maparg(l:key, l:mode), l:ft . ': ' . l:mode . ' ' . l:key)
      endfor
    endfor
    for l:line in split(execute('map <buffer>'), "\n")
      let l:m = matchlist(l:line, '^\(\S\+\)\s\+\(\S\+\)\s\+[*&@ ]*\(<Plug>(maildex-[a-z-]\+)\)$')
      if !empty(l:m)
        call assert_notequal(-1, index(map(copy(l:keys), 'tolower(v:val)'), tolower(l:m[2])),
              \ l:ft . ': ' . l:m[2] . ' is mapped (to ' . l:m[3] . ') but not in the help''s table')
      endif
    endfor
    if has_key(l:sections, l:ft)
      call assert_equal(sort(copy(l:keys)), s:help_section(l:text, l:sections[l:ft]), l:ft . ': the keys *' . l:sections[l:ft] . '* describes')
    endif
    let l:row = filter(copy(l:md), 'v:val =~# "^| " . escape(keys(filter(copy(l:rows), "v:val ==# l:ft"))[0], " ") . "[ |(]"')
    call assert_equal(1, len(l:row), l:ft . ': its row in doc/vim.md')
    let l:named = []
    call substitute(get(split(get(l:row, 0, ''), '|'), 1, ''), '`\([^`]\+\)`', '\=add(l:named, submatch(1))', 'g')
    call filter(l:named, 'index(l:prose[l:ft], v:val) < 0')
    call map(l:named, 's:key(substitute(substitute(substitute(v:val, "^Enter$", "<CR>", ""), "^Space$", "<Space>", ""), "Ctrl-", "CTRL-", "g"))')
    call assert_equal(sort(copy(l:keys)), uniq(sort(l:named)), l:ft . ': the keys doc/vim.md names')
    bwipeout!
  endfor
endfunction
